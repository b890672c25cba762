package http

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"sparrow"
)

func decodeMap(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", body, err)
	}
	return m
}

// hasNull reports whether m has key with a JSON null value.
func hasNull(m map[string]any, key string) bool {
	v, ok := m[key]
	return ok && v == nil
}

func TestAccountEntity(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/api/v1/accounts/" + aliceID.String()})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	m := decodeMap(t, w.Body.Bytes())
	want := map[string]any{
		"id":              aliceID.String(),
		"username":        "alice",
		"acct":            "alice",
		"display_name":    "Alice <3",
		"locked":          false,
		"bot":             false,
		"group":           false,
		"discoverable":    false,
		"created_at":      "2025-03-14T00:00:00.000Z",
		"note":            "<p>Hello &amp; welcome<br />to &lt;my&gt; page</p>",
		"url":             testBase + "/@alice",
		"uri":             testBase + "/users/alice",
		"avatar":          testBase + "/avatars/original/missing.png",
		"header_static":   testBase + "/headers/original/missing.png",
		"followers_count": float64(3),
		"following_count": float64(4),
		"statuses_count":  float64(2),
		"last_status_at":  "2025-03-16",
		"emojis":          []any{},
		"fields":          []any{},
	}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	for _, private := range []string{"email", "password_hash", "source", "Email", "PasswordHash"} {
		if _, ok := m[private]; ok {
			t.Errorf("account exposes %q", private)
		}
	}
	if strings.Contains(w.Body.String(), "argon2") || strings.Contains(w.Body.String(), "alice@example.com") {
		t.Error("account leaks private data")
	}

	// bob never posted: last_status_at is null; his empty note is "".
	m = decodeMap(t, h.do(t, req{method: "GET", path: "/api/v1/accounts/" + bobID.String()}).Body.Bytes())
	if !hasNull(m, "last_status_at") || m["note"] != "" {
		t.Errorf("bob: last_status_at = %#v, note = %#v", m["last_status_at"], m["note"])
	}
}

func TestCredentialAccountEntity(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/api/v1/accounts/verify_credentials", token: tokUser})
	m := decodeMap(t, w.Body.Bytes())
	src, ok := m["source"].(map[string]any)
	if !ok {
		t.Fatalf("no source: %s", w.Body)
	}
	want := map[string]any{"note": "Hello & welcome\nto <my> page", "fields": []any{}, "privacy": "public",
		"sensitive": false, "language": nil, "follow_requests_count": float64(0)}
	if !reflect.DeepEqual(src, want) {
		t.Errorf("source = %#v\nwant %#v", src, want)
	}
	if m["username"] != "alice" {
		t.Errorf("username = %v", m["username"])
	}
}

func TestUpdateCredentials(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "PATCH", path: "/api/v1/accounts/update_credentials", token: tokUser,
		ctype: "application/json", body: `{"display_name":"A.","locked":"true"}`})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	u := h.accounts.update
	if u.DisplayName == nil || *u.DisplayName != "A." || u.Locked == nil || !*u.Locked || u.Note != nil || u.Bot != nil {
		t.Errorf("update = %+v: only display_name and locked must be set", u)
	}
	m := decodeMap(t, w.Body.Bytes())
	if m["display_name"] != "A." || m["locked"] != true || m["source"] == nil {
		t.Errorf("response = %v", m)
	}
}

func TestLookupAccount(t *testing.T) {
	h := newHarness(t)
	for _, acct := range []string{"alice", "@alice", "alice@" + testDomain} {
		w := h.do(t, req{method: "GET", path: "/api/v1/accounts/lookup?acct=" + acct})
		if w.Code != 200 || decodeMap(t, w.Body.Bytes())["id"] != aliceID.String() {
			t.Errorf("lookup %q: %d %s", acct, w.Code, w.Body)
		}
	}
	if w := h.do(t, req{method: "GET", path: "/api/v1/accounts/lookup"}); w.Code != 400 {
		t.Errorf("lookup without acct: %d, want 400", w.Code)
	}
	if w := h.do(t, req{method: "GET", path: "/api/v1/accounts/lookup?acct=nobody"}); w.Code != 404 {
		t.Errorf("lookup unknown: %d, want 404", w.Code)
	}
}

// seedThread stores: a quoted status by bob (which itself quotes a deleted
// status), alice's status that mentions bob and quotes bob's, and a reblog of
// it by bob.
func seedThread(h *harness) (quoted, main, reblog *sparrow.Status) {
	quoted = h.statuses.add(&sparrow.Status{ID: statusID(1), AccountID: bobID, Text: "quoted", Visibility: sparrow.Public,
		QuoteID: statusID(99)}) // 99 does not exist
	main = h.statuses.add(&sparrow.Status{ID: statusID(2), AccountID: aliceID, Visibility: sparrow.Unlisted,
		Text:     "Hi @bob & @nobody <b>x</b>\nsee https://example.com/a?b=1&c=2. #Go #tag_1\n\nbye",
		Mentions: []sparrow.ID{bobID}, Tags: []string{"go", "tag_1"}, Language: "en",
		InReplyToID: statusID(1), InReplyToAccountID: bobID, QuoteID: statusID(1), SpoilerText: "cw <x>",
		RepliesCount: 1, ReblogsCount: 2, FavouritesCount: 3})
	reblog = h.statuses.add(&sparrow.Status{ID: statusID(3), AccountID: bobID, Type: sparrow.Repost, ReblogOfID: main.ID, Visibility: sparrow.Public})
	return
}

func TestStatusEntity(t *testing.T) {
	h := newHarness(t)
	_, main, _ := seedThread(h)
	w := h.do(t, req{method: "GET", path: "/api/v1/statuses/" + main.ID.String()})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	m := decodeMap(t, w.Body.Bytes())
	want := map[string]any{
		"id":                     main.ID.String(),
		"uri":                    testBase + "/users/alice/statuses/" + main.ID.String(),
		"url":                    testBase + "/@alice/" + main.ID.String(),
		"created_at":             "2025-03-14T15:11:26.535Z",
		"visibility":             "unlisted",
		"sensitive":              false,
		"spoiler_text":           "cw <x>",
		"language":               "en",
		"in_reply_to_id":         statusID(1).String(),
		"in_reply_to_account_id": bobID.String(),
		"replies_count":          float64(1),
		"reblogs_count":          float64(2),
		"favourites_count":       float64(3),
		"media_attachments":      []any{},
		"emojis":                 []any{},
		"mentions": []any{map[string]any{"id": bobID.String(), "username": "bob", "acct": "bob",
			"url": testBase + "/@bob"}},
		"tags": []any{map[string]any{"name": "go", "url": testBase + "/tags/go"},
			map[string]any{"name": "tag_1", "url": testBase + "/tags/tag_1"}},
	}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	for _, k := range []string{"edited_at", "text", "reblog", "card", "poll", "application"} {
		if !hasNull(m, k) {
			t.Errorf("%s = %#v, want null", k, m[k])
		}
	}
	for _, k := range []string{"favourited", "reblogged", "muted", "bookmarked", "pinned"} {
		if _, ok := m[k]; ok {
			t.Errorf("anonymous viewer sees %s", k)
		}
	}
	if acc := m["account"].(map[string]any); acc["id"] != aliceID.String() {
		t.Errorf("account = %v", acc)
	}

	wantContent := `<p>Hi <span class="h-card" translate="no"><a href="` + testBase + `/@bob" class="u-url mention">@<span>bob</span></a></span>` +
		` &amp; @nobody &lt;b&gt;x&lt;/b&gt;<br />see <a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="nofollow noopener" translate="no">https://example.com/a?b=1&amp;c=2</a>. ` +
		`<a href="` + testBase + `/tags/go" class="mention hashtag" rel="tag">#<span>Go</span></a> ` +
		`<a href="` + testBase + `/tags/tag_1" class="mention hashtag" rel="tag">#<span>tag_1</span></a></p><p>bye</p>`
	if m["content"] != wantContent {
		t.Errorf("content =\n%s\nwant\n%s", m["content"], wantContent)
	}

	// The quote is accepted with the full quoted status, whose own quote
	// (of a missing status) is shallow and deleted.
	q, ok := m["quote"].(map[string]any)
	if !ok || q["state"] != "accepted" {
		t.Fatalf("quote = %#v", m["quote"])
	}
	qs := q["quoted_status"].(map[string]any)
	if qs["id"] != statusID(1).String() || qs["content"] != "<p>quoted</p>" {
		t.Errorf("quoted_status = %v", qs)
	}
	inner, _ := qs["quote"].(map[string]any)
	if !reflect.DeepEqual(inner, map[string]any{"state": "deleted", "quoted_status_id": nil}) {
		t.Errorf("nested quote = %#v, want a shallow deleted quote", qs["quote"])
	}
}

func TestStatusQuoteDeletedAndNone(t *testing.T) {
	h := newHarness(t)
	s := h.statuses.add(&sparrow.Status{ID: statusID(5), AccountID: aliceID, Text: "q", QuoteID: statusID(98)})
	m := decodeMap(t, h.do(t, req{method: "GET", path: "/api/v1/statuses/" + s.ID.String()}).Body.Bytes())
	if !reflect.DeepEqual(m["quote"], map[string]any{"state": "deleted", "quoted_status": nil}) {
		t.Errorf("quote = %#v, want deleted with null quoted_status", m["quote"])
	}
	if m["visibility"] != "public" {
		t.Errorf("empty visibility rendered as %v, want public", m["visibility"])
	}
	s2 := h.statuses.add(&sparrow.Status{ID: statusID(6), AccountID: aliceID, Text: "plain"})
	m = decodeMap(t, h.do(t, req{method: "GET", path: "/api/v1/statuses/" + s2.ID.String()}).Body.Bytes())
	if !hasNull(m, "quote") {
		t.Errorf("quote = %#v, want null", m["quote"])
	}
}

func TestReblogEntity(t *testing.T) {
	h := newHarness(t)
	_, main, rb := seedThread(h)
	m := decodeMap(t, h.do(t, req{method: "GET", path: "/api/v1/statuses/" + rb.ID.String(), token: tokUser}).Body.Bytes())
	inner, ok := m["reblog"].(map[string]any)
	if !ok || inner["id"] != main.ID.String() {
		t.Fatalf("reblog = %#v", m["reblog"])
	}
	if m["content"] != "" || m["account"].(map[string]any)["username"] != "bob" {
		t.Errorf("wrapper content %q by %v", m["content"], m["account"])
	}
	if inner["account"].(map[string]any)["username"] != "alice" {
		t.Errorf("reblogged status author = %v", inner["account"])
	}
	// A signed-in viewer sees the relations; pinned only on their own status.
	if m["favourited"] != false || m["bookmarked"] != false {
		t.Errorf("favourited = %v, bookmarked = %v, want false", m["favourited"], m["bookmarked"])
	}
	if _, ok := m["pinned"]; ok {
		t.Error("pinned shown on another account's status")
	}
	if inner["pinned"] != false {
		t.Errorf("pinned on own status = %v, want false", inner["pinned"])
	}
}

func TestStatusMissingAuthorIs500(t *testing.T) {
	h := newHarness(t)
	s := h.statuses.add(&sparrow.Status{ID: statusID(7), AccountID: 12345, Text: "orphan"})
	w := h.do(t, req{method: "GET", path: "/api/v1/statuses/" + s.ID.String()})
	if w.Code != 500 {
		t.Errorf("status = %d, want 500", w.Code)
	}
}

func TestPostStatus(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/api/v1/statuses", token: tokUser, ctype: "application/json",
		header: map[string][]string{"Idempotency-Key": {"key-1"}},
		body: `{"status":"hello","spoiler_text":"cw","sensitive":true,"language":"de","visibility":"private",
		        "in_reply_to_id":"` + statusID(1).String() + `","quoted_status_id":"` + statusID(2).String() + `","object":"book:42","media_ids":null}`})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	want := sparrow.PostStatus{Text: "hello", SpoilerText: "cw", Sensitive: true, Language: "de", Visibility: sparrow.Private,
		InReplyToID: statusID(1), QuoteID: statusID(2), Object: "book:42", IdempotencyKey: "key-1"}
	if h.statuses.posted != want {
		t.Errorf("posted %+v\nwant   %+v", h.statuses.posted, want)
	}
	m := decodeMap(t, w.Body.Bytes())
	if m["content"] != "<p>hello</p>" || m["visibility"] != "private" || !hasNull(m, "text") {
		t.Errorf("response = %v", m)
	}
}

func TestPostStatusRejectsUnsupported(t *testing.T) {
	h := newHarness(t)
	for _, body := range []string{"status=x&media_ids[]=1", "status=x&poll[options][]=a&poll[expires_in]=60", "status=x&scheduled_at=2030-01-01T00:00:00Z"} {
		w := h.do(t, req{method: "POST", path: "/api/v1/statuses", token: tokUser, ctype: "application/x-www-form-urlencoded", body: body})
		if w.Code != 422 {
			t.Errorf("%s: status %d, want 422", body, w.Code)
		}
	}
	w := h.do(t, req{method: "POST", path: "/api/v1/statuses", token: tokUser, ctype: "application/x-www-form-urlencoded", body: "status=x&in_reply_to_id=abc"})
	if w.Code != 404 {
		t.Errorf("malformed in_reply_to_id: %d, want 404", w.Code)
	}
}

func TestEditDeleteHistorySource(t *testing.T) {
	h := newHarness(t)
	s := h.statuses.add(&sparrow.Status{ID: statusID(8), AccountID: aliceID, Text: "orig <text>", SpoilerText: "sp"})
	id := s.ID.String()

	w := h.do(t, req{method: "PUT", path: "/api/v1/statuses/" + id, token: tokUser, ctype: "application/x-www-form-urlencoded",
		body: "status=edited&sensitive=1&language=fr"})
	if w.Code != 200 {
		t.Fatalf("edit: %d %s", w.Code, w.Body)
	}
	if want := (sparrow.EditStatus{Text: "edited", Sensitive: true, Language: "fr"}); h.statuses.edited != want {
		t.Errorf("edit got %+v, want %+v", h.statuses.edited, want)
	}
	m := decodeMap(t, w.Body.Bytes())
	if m["edited_at"] != t0.Add(time.Hour).Format(timeFormat) || m["id"] != id {
		t.Errorf("edited: edited_at %v, id %v", m["edited_at"], m["id"])
	}

	w = h.do(t, req{method: "GET", path: "/api/v1/statuses/" + id + "/history"})
	var hist []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &hist); err != nil || len(hist) != 2 {
		t.Fatalf("history: %v %s", err, w.Body)
	}
	if hist[0]["content"] != "<p>first &lt;draft&gt;</p>" || hist[0]["created_at"] != "2025-03-14T15:09:26.535Z" ||
		hist[1]["spoiler_text"] != "cw" || hist[1]["sensitive"] != true ||
		hist[0]["account"].(map[string]any)["id"] != aliceID.String() ||
		!reflect.DeepEqual(hist[0]["media_attachments"], []any{}) || !reflect.DeepEqual(hist[0]["emojis"], []any{}) {
		t.Errorf("history = %v", hist)
	}

	w = h.do(t, req{method: "GET", path: "/api/v1/statuses/" + id + "/source", token: tokUser})
	if got := decodeMap(t, w.Body.Bytes()); !reflect.DeepEqual(got, map[string]any{"id": id, "text": "edited", "spoiler_text": ""}) {
		t.Errorf("source = %v", got)
	}
	h.auth.tokens["tok-bob"] = sparrow.Viewer{AccountID: bobID, AppID: appID, Scopes: sparrow.Scopes{"read", "write"}}
	if bw := h.do(t, req{method: "GET", path: "/api/v1/statuses/" + id + "/source", token: "tok-bob"}); bw.Code != 403 {
		t.Errorf("source of another's status: %d, want 403", bw.Code)
	}

	w = h.do(t, req{method: "DELETE", path: "/api/v1/statuses/" + id, token: tokUser})
	m = decodeMap(t, w.Body.Bytes())
	if w.Code != 200 || m["text"] != "edited" || m["content"] != "<p>edited</p>" {
		t.Errorf("delete: %d text=%v content=%v", w.Code, m["text"], m["content"])
	}
	if w := h.do(t, req{method: "DELETE", path: "/api/v1/statuses/" + id, token: tokUser}); w.Code != 404 {
		t.Errorf("second delete: %d, want 404", w.Code)
	}
}

func TestContentFormatter(t *testing.T) {
	f := contentFormatter{base: "https://x", domain: "x", mentions: map[string]string{"bob": "https://x/@bob"}}
	tests := []struct{ in, want string }{
		{"", ""},
		{"  \n ", ""},
		{"a\r\nb", "<p>a<br />b</p>"},
		{"a\n\n\nb", "<p>a</p><p>b</p>"},
		{`<script>alert("x")</script>`, "<p>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</p>"},
		{"mail a@bob or x#tag or (#tag)", `<p>mail a@bob or x#tag or (<a href="https://x/tags/tag" class="mention hashtag" rel="tag">#<span>tag</span></a>)</p>`},
		{"@bob@x @bob@elsewhere", `<p><span class="h-card" translate="no"><a href="https://x/@bob" class="u-url mention">@<span>bob</span></a></span> @bob@elsewhere</p>`},
		{"(see https://e.com/x_(y)) and https://e.com/z).", `<p>(see <a href="https://e.com/x_(y)" target="_blank" rel="nofollow noopener" translate="no">https://e.com/x_(y)</a>) and <a href="https://e.com/z" target="_blank" rel="nofollow noopener" translate="no">https://e.com/z</a>).</p>`},
		{`https://e.com/"onmouseover="x`, `<p><a href="https://e.com/" target="_blank" rel="nofollow noopener" translate="no">https://e.com/</a>&#34;onmouseover=&#34;x</p>`},
		{`a<b&"c #x`, `<p>a&lt;b&amp;&#34;c <a href="https://x/tags/x" class="mention hashtag" rel="tag">#<span>x</span></a></p>`},
		{"#123 #日本語", `<p>#123 <a href="https://x/tags/%E6%97%A5%E6%9C%AC%E8%AA%9E" class="mention hashtag" rel="tag">#<span>日本語</span></a></p>`},
	}
	for _, tc := range tests {
		if got := f.format(tc.in); got != tc.want {
			t.Errorf("format(%q) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}
