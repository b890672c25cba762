package http

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"sparrow"
)

func multipartBody(t *testing.T, fields [][2]string) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	mw.Close()
	return buf.String(), mw.FormDataContentType()
}

func TestParamsMergeEncodings(t *testing.T) {
	mp, mpType := multipartBody(t, [][2]string{{"id[]", "3"}, {"id[]", "4"}, {"status", "from multipart"}})
	tests := []struct {
		name, query, ctype, body string
		wantIDs                  []string
		wantStatus               string
	}{
		{"query array", "?id[]=1&id[]=2&status=q", "", "", []string{"1", "2"}, "q"},
		{"query plain id", "?id=1&status=q", "", "", []string{"1"}, "q"},
		{"form array", "", "application/x-www-form-urlencoded", "id%5B%5D=5&id%5B%5D=6&status=form", []string{"5", "6"}, "form"},
		{"form plain and array", "", "application/x-www-form-urlencoded", "id=5&id[]=5&status=form", []string{"5", "5"}, "form"},
		{"multipart array", "", mpType, mp, []string{"3", "4"}, "from multipart"},
		{"json id array", "", "application/json", `{"id":[7,"8"],"status":"json"}`, []string{"7", "8"}, "json"},
		{"json id[] array", "", "application/json; charset=utf-8", `{"id[]":["9"],"status":"json"}`, []string{"9"}, "json"},
		{"body overrides query", "?id[]=1&status=query&limit=5", "application/json", `{"id":[2],"status":"body"}`, []string{"2"}, "body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x"+tc.query, strings.NewReader(tc.body))
			if tc.ctype != "" {
				r.Header.Set("Content-Type", tc.ctype)
			}
			p, err := parseParams(r)
			if err != nil {
				t.Fatalf("parseParams: %v", err)
			}
			if got := p.Strings("id"); !reflect.DeepEqual(got, tc.wantIDs) {
				t.Errorf("Strings(id) = %q, want %q", got, tc.wantIDs)
			}
			if got := p.String("status"); got != tc.wantStatus {
				t.Errorf("String(status) = %q, want %q", got, tc.wantStatus)
			}
			ids, err := p.IDs("id")
			if err != nil || len(ids) != len(tc.wantIDs) || ids[0].String() != tc.wantIDs[0] {
				t.Errorf("IDs(id) = %v, %v; want %q", ids, err, tc.wantIDs)
			}
		})
	}
}

func TestParamsQueryKeptWhenBodyLacksKey(t *testing.T) {
	r := httptest.NewRequest("POST", "/x?limit=5", strings.NewReader(`{"status":"x"}`))
	r.Header.Set("Content-Type", "application/json")
	p, err := parseParams(r)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := p.Int("limit", 20); n != 5 || err != nil {
		t.Errorf("Int(limit) = %d, %v; want 5 from the query", n, err)
	}
}

func TestParamsJSONFlattening(t *testing.T) {
	body := `{"poll":{"options":["a","b"],"expires_in":3600,"multiple":true},
		"fields_attributes":[{"name":"n0","value":"v0"}],"sensitive":false,"in_reply_to_id":null,"media_ids":[]}`
	r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	p, err := parseParams(r)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"poll[options]":               {"a", "b"},
		"poll[expires_in]":            {"3600"},
		"poll[multiple]":              {"true"},
		"fields_attributes[0][name]":  {"n0"},
		"fields_attributes[0][value]": {"v0"},
		"sensitive":                   {"false"},
	}
	if !reflect.DeepEqual(map[string][]string(p.v), want) {
		t.Errorf("flattened = %v\nwant        %v", p.v, want)
	}
	if p.Has("in_reply_to_id") || p.Has("media_ids") {
		t.Error("null and empty arrays must leave the key absent")
	}
}

func TestParamsMalformed(t *testing.T) {
	tests := []struct{ name, ctype, body string }{
		{"bad json", "application/json", `{"status": "x"`},
		{"json array", "application/json", `["x"]`},
		{"json trailing", "application/json", `{"a":1} {"b":2}`},
		{"bad form", "application/x-www-form-urlencoded", "a=%zz"},
		{"bad multipart", "multipart/form-data; boundary=xyz", "not multipart"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.ctype)
			_, err := parseParams(r)
			if !sparrow.IsKind(err, sparrow.EBadRequest) {
				t.Errorf("err = %v, want EBadRequest", err)
			}
		})
	}
}

func TestParamsEmptyJSONBody(t *testing.T) {
	r := httptest.NewRequest("POST", "/x", strings.NewReader("  "))
	r.Header.Set("Content-Type", "application/json")
	if _, err := parseParams(r); err != nil {
		t.Errorf("empty JSON body: %v, want no error", err)
	}
}

func TestParamsTypedGetters(t *testing.T) {
	r := httptest.NewRequest("GET", "/x?t1=true&t2=1&t3=on&t4=TRUE&f1=false&f2=0&f3=off&f4=&n=42&bad=4x2&id=123&badid=abc&neg=-5", nil)
	p, err := parseParams(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"t1", "t2", "t3", "t4"} {
		if !p.Bool(k) {
			t.Errorf("Bool(%s) = false, want true", k)
		}
	}
	for _, k := range []string{"f1", "f2", "f3", "f4", "absent"} {
		if p.Bool(k) {
			t.Errorf("Bool(%s) = true, want false", k)
		}
	}
	if b := p.OptBool("absent"); b != nil {
		t.Errorf("OptBool(absent) = %v, want nil", *b)
	}
	if b := p.OptBool("f4"); b == nil || *b {
		t.Errorf("OptBool(f4) = %v, want false", b)
	}
	if s := p.OptString("f4"); s == nil || *s != "" {
		t.Errorf("OptString(f4) = %v, want empty", s)
	}
	if n, err := p.Int("n", 7); n != 42 || err != nil {
		t.Errorf("Int(n) = %d, %v", n, err)
	}
	if n, err := p.Int("absent", 7); n != 7 || err != nil {
		t.Errorf("Int(absent) = %d, %v; want default 7", n, err)
	}
	if _, err := p.Int("bad", 7); !sparrow.IsKind(err, sparrow.EBadRequest) {
		t.Errorf("Int(bad) err = %v, want EBadRequest", err)
	}
	if id, err := p.ID("id"); id != 123 || err != nil {
		t.Errorf("ID(id) = %d, %v", id, err)
	}
	if id, err := p.ID("absent"); id != 0 || err != nil {
		t.Errorf("ID(absent) = %d, %v; want 0, nil", id, err)
	}
	for _, k := range []string{"badid", "neg"} {
		if _, err := p.ID(k); !sparrow.IsKind(err, sparrow.ENotFound) {
			t.Errorf("ID(%s) err = %v, want ENotFound", k, err)
		}
	}
}

func TestMalformedJSONIs400(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/api/v1/statuses", token: tokUser, ctype: "application/json", body: `{"status":`})
	if w.Code != http.StatusBadRequest {
		t.Fatalf("status = %d, want 400; body %s", w.Code, w.Body)
	}
	var body map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body["error"] == "" {
		t.Errorf("body = %s, want {\"error\": ...}", w.Body)
	}
}

func TestBodyTooLargeIs413(t *testing.T) {
	h := newHarness(t) // MaxBodyBytes is 4 KiB
	big := strings.Repeat("a", 8<<10)
	for _, tc := range []struct{ name, ctype, body string }{
		{"json", "application/json", `{"status":"` + big + `"}`},
		{"form", "application/x-www-form-urlencoded", "status=" + big},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := h.do(t, req{method: "POST", path: "/api/v1/statuses", token: tokUser, ctype: tc.ctype, body: tc.body})
			if w.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("status = %d, want 413; body %s", w.Code, w.Body)
			}
			assertJSONError(t, w.Body.Bytes(), "Request body too large (at most 4096 bytes)")
		})
	}
	t.Run("multipart", func(t *testing.T) {
		body, ctype := multipartBody(t, [][2]string{{"status", big}})
		w := h.do(t, req{method: "POST", path: "/api/v1/statuses", token: tokUser, ctype: ctype, body: body})
		if w.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("status = %d, want 413; body %s", w.Code, w.Body)
		}
	})
	t.Run("oauth", func(t *testing.T) {
		w := h.do(t, req{method: "POST", path: "/oauth/token", ctype: "application/x-www-form-urlencoded", body: "grant_type=password&password=" + big})
		if w.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("status = %d, want 413; body %s", w.Code, w.Body)
		}
		assertOAuthError(t, w.Body.Bytes(), "invalid_request")
	})
}

func assertJSONError(t *testing.T, body []byte, want string) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %q is not JSON: %v", body, err)
	}
	if len(got) != 1 || got["error"] != want {
		t.Errorf("body = %s, want exactly {\"error\": %q}", body, want)
	}
}

func assertOAuthError(t *testing.T, body []byte, code string) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %q is not JSON: %v", body, err)
	}
	desc, _ := got["error_description"].(string)
	if len(got) != 2 || got["error"] != code || desc == "" {
		t.Errorf("body = %s, want {\"error\": %q, \"error_description\": non-empty}", body, code)
	}
}

// TestParamsBounded: a request's parameters cost bounded memory whatever
// its shape, and the limits answer 413 or 422 with Mastodon's body. The
// nested body is the one that cost 145 MB per request when keys were built
// for every level.
func TestParamsBounded(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 9000) + `"x"` + strings.Repeat("}", 9000) // under encoding/json's own depth limit
	wide := `{"` + strings.Repeat("k", 30<<10) + `":{` + strings.Repeat(`"v":1,`, 4000) + `"v":1}}`
	many := strings.Repeat("id[]=1&", maxParams) + "id[]=1"
	manyJSON := `{"id":[` + strings.Repeat("1,", maxParams) + `1]}`
	for _, tc := range []struct {
		name, ctype, body string
		status            int
	}{
		{"deep json", "application/json", deep, 422},
		{"long key repeated by nesting", "application/json", wide, 413},
		{"too many form values", "application/x-www-form-urlencoded", many, 413},
		{"too many json values", "application/json", manyJSON, 413},
		{"at the depth limit", "application/json", strings.Repeat(`{"a":`, maxJSONDepth) + `"x"` + strings.Repeat("}", maxJSONDepth), 0},
		{"one level deeper", "application/json", strings.Repeat(`{"a":`, maxJSONDepth+1) + `"x"` + strings.Repeat("}", maxJSONDepth+1), 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.ctype)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := parseParams(r)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("parsing a %d-byte body allocated %d MB", len(tc.body), alloc>>20)
			}
			if tc.status == 0 {
				if err != nil {
					t.Fatalf("parseParams: %v", err)
				}
				return
			}
			if got := statusOf(sparrow.ErrorKind(err)); got != tc.status {
				t.Fatalf("parseParams: %v (HTTP %d), want HTTP %d", err, got, tc.status)
			}
		})
	}
	t.Run("through the server", func(t *testing.T) {
		h := newHarness(t)
		h.srv.MaxBodyBytes = 1 << 20
		h.h = h.srv.Handler()
		w := h.do(t, req{method: "POST", path: "/api/v1/statuses", ctype: "application/json", body: deep}) // anonymous
		if w.Code != 422 {
			t.Fatalf("status %d, want 422: %s", w.Code, w.Body)
		}
		assertJSONError(t, w.Body.Bytes(), fmt.Sprintf("JSON body nested too deeply (at most %d levels)", maxJSONDepth))
	})
}
