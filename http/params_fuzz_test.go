package http

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sparrow"
)

// FuzzParams: parsing any query string and body, of any content type, never
// panics, fails only with a 4xx kind, stays within the limits, and for a
// JSON body within the depth limit yields the same parameters as a plain
// recursive flattening of the decoded object (the reference).
func FuzzParams(f *testing.F) {
	f.Add("id[]=1&id[]=2", "application/json", []byte(`{"status":"hi","poll":{"options":["a","b"]},"fields":[{"name":"n"}]}`))
	f.Add("limit=5&max_id=9", "application/x-www-form-urlencoded", []byte("status=%E4%BD%A0&id[]=3"))
	f.Add("", "application/json", []byte(`{"a":{"b":{"c":[1,[2,3],{"d":null}]}}}`))
	f.Add("", "application/json", []byte(`[1]`))
	f.Add("%zz", "text/plain", []byte("x"))
	f.Add("", "multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--x--\r\n"))
	f.Fuzz(func(t *testing.T, query, ctype string, body []byte) {
		r := httptest.NewRequest("POST", "/x", bytes.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Content-Type", ctype)
		p, err := parseParams(r)
		if r.MultipartForm != nil {
			r.MultipartForm.RemoveAll()
		}
		if err != nil {
			if code := statusOf(sparrow.ErrorKind(err)); code < 400 || code >= 500 {
				t.Fatalf("parseParams error %v is HTTP %d", err, code)
			}
			return
		}
		n, size := 0, 0
		for k, vs := range p.v {
			n += len(vs)
			for _, v := range vs {
				size += len(k) + len(v)
			}
		}
		if n > maxParams || size > maxParamBytes {
			t.Fatalf("%d values, %d bytes: over the limits", n, size)
		}
		if mt := strings.TrimSpace(strings.SplitN(ctype, ";", 2)[0]); mt == "application/json" && len(bytes.TrimSpace(body)) > 0 {
			want := url.Values{}
			if q, err := url.ParseQuery(query); err == nil {
				for k, vs := range q {
					want[strings.TrimSuffix(k, "[]")] = append(want[strings.TrimSuffix(k, "[]")], vs...)
				}
			}
			var obj map[string]any
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			if dec.Decode(&obj) != nil {
				t.Fatalf("parseParams accepted JSON that encoding/json rejects: %q", body)
			}
			fromBody := url.Values{}
			referenceFlatten(fromBody, "", obj)
			for k, vs := range fromBody {
				want[k] = vs
			}
			if !sameValues(p.v, want) {
				t.Fatalf("flattened %q to %v, want %v", body, p.v, want)
			}
		}
	})
}

// referenceFlatten is the plain recursive flattening of a decoded JSON value
// (see params for the rules).
func referenceFlatten(out url.Values, key string, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			k = strings.TrimSuffix(k, "[]")
			if key != "" {
				k = key + "[" + k + "]"
			}
			referenceFlatten(out, k, sub)
		}
	case []any:
		for i, el := range x {
			switch el.(type) {
			case map[string]any, []any:
				referenceFlatten(out, key+"["+strconv.Itoa(i)+"]", el)
			default:
				referenceFlatten(out, key, el)
			}
		}
	case string:
		out.Add(key, x)
	case json.Number:
		out.Add(key, x.String())
	case bool:
		out.Add(key, strconv.FormatBool(x))
	}
}

// sameValues compares parameter sets, ignoring the order of the values of
// a key (JSON objects have no order; duplicate keys keep the last value in
// encoding/json and every value here).
func sameValues(got, want url.Values) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		g := slices.Clone(got[k])
		sort.Strings(g)
		w = slices.Clone(w)
		sort.Strings(w)
		if !reflect.DeepEqual(g, w) {
			return false
		}
	}
	return true
}

func TestJSONRepeatedMemberReplaces(t *testing.T) {
	for body, want := range map[string]url.Values{
		`{"a":"1","a":"2"}`:                      {"a": {"2"}},
		`{"a":{"x":"1"},"a":{"y":"2"},"ab":"3"}`: {"a[y]": {"2"}, "ab": {"3"}},
		`{"id":["1"],"id[]":["2"]}`:              {"id": {"1", "2"}},
	} {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		p, err := parseParams(r)
		if err != nil || !sameValues(p.v, want) {
			t.Errorf("%s → %v %v, want %v", body, p.v, err, want)
		}
	}
}
