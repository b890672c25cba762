// Package httpfuzz sends random requests to every route of a running Sparrow
// (or any Mastodon API server) and reports what no answer may be: a 5xx, a
// 4xx without an error body, or a connection that breaks. Requests mix
// valid and hostile values (ids of real objects and of nothing, huge and
// invalid-UTF-8 strings, deep JSON, many parameters, bad tokens) in every
// encoding the API accepts (query string, form, multipart, JSON). It is
// deterministic for a seed.
package httpfuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Target is what the fuzzer knows of the server.
type Target struct {
	BaseURL string
	// Routes are ServeMux patterns, "METHOD /path/{wildcard}".
	Routes []string
	// Tokens are bearer tokens to use (users' and apps'); requests also go
	// without a token and with a garbage one.
	Tokens []string
	// IDs are ids of real objects (accounts, statuses, notifications) for
	// the path wildcards and id parameters; random ids are used too.
	IDs []string
	// Words are other real values (usernames, tags, client ids).
	Words []string
}

// Options tune a run.
type Options struct {
	Requests    int           // how many requests (default 1000)
	Concurrency int           // requests in flight (default 4)
	Seed        uint64        // the random seed
	Timeout     time.Duration // per request (default 5s); streams are cut after their headers
}

// Failure is one answer that no request may get.
type Failure struct {
	Method, URL, ContentType, Body string
	Status                         int
	Answer                         string
}

func (f Failure) String() string {
	body := f.Body
	if len(body) > 300 {
		body = body[:300] + "…"
	}
	return fmt.Sprintf("%s %s [%s %q] → %d %s", f.Method, f.URL, f.ContentType, body, f.Status, f.Answer)
}

// Result counts a run.
type Result struct {
	Requests int
	ByStatus map[int]int
	Failures []Failure
}

// Run sends o.Requests requests to t and returns what came back.
func Run(ctx context.Context, t Target, o Options) Result {
	if o.Requests <= 0 {
		o.Requests = 1000
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	client := &http.Client{Timeout: o.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res := Result{ByStatus: map[int]int{}}
	var mu sync.Mutex
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < o.Concurrency; w++ {
		wg.Go(func() {
			for i := range jobs {
				g := gen{t: &t, r: rand.New(rand.NewPCG(o.Seed, uint64(i)))}
				req := g.request(t.Routes[i%len(t.Routes)])
				status, fail := send(ctx, client, req)
				mu.Lock()
				res.Requests++
				res.ByStatus[status]++
				if fail != nil {
					res.Failures = append(res.Failures, *fail)
				}
				mu.Unlock()
			}
		})
	}
	for i := 0; i < o.Requests && ctx.Err() == nil; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return res
}

// request is one generated request.
type request struct {
	method, url, ctype, token string
	body                      []byte
}

// send sends req and checks the answer.
func send(ctx context.Context, c *http.Client, req request) (int, *Failure) {
	fail := func(status int, answer string) *Failure {
		return &Failure{Method: req.method, URL: req.url, ContentType: req.ctype, Body: string(req.body), Status: status, Answer: answer}
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, req.url, bytes.NewReader(req.body))
	if err != nil {
		return 0, nil // the generator made a URL that net/http will not send: nothing reached the server
	}
	if req.ctype != "" {
		hr.Header.Set("Content-Type", req.ctype)
	}
	if req.token != "" {
		hr.Header.Set("Authorization", "Bearer "+req.token)
	}
	resp, err := c.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil
		}
		return 0, fail(0, "no answer: "+err.Error())
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
		return resp.StatusCode, nil // a stream: its headers are the answer
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		return resp.StatusCode, fail(resp.StatusCode, "body broken: "+err.Error())
	}
	switch {
	case resp.StatusCode >= 500:
		return resp.StatusCode, fail(resp.StatusCode, string(body))
	case resp.StatusCode >= 400 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html"):
		// A page for people (the OAuth authorization form) explains itself.
	case resp.StatusCode >= 400:
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error == "" {
			return resp.StatusCode, fail(resp.StatusCode, "no error body: "+string(body))
		}
	}
	return resp.StatusCode, nil
}

// gen generates one request.
type gen struct {
	t *Target
	r *rand.Rand
}

var wildcardRE = regexp.MustCompile(`\{([^}]+)\}`)

// paramNames are the parameters of the API, and a few it does not know.
var paramNames = []string{
	"status", "visibility", "spoiler_text", "sensitive", "language", "in_reply_to_id", "quoted_status_id", "object",
	"media_ids", "poll[options]", "poll[expires_in]", "scheduled_at", "limit", "max_id", "since_id", "min_id", "id",
	"q", "type", "resolve", "following", "account_id", "offset", "types", "exclude_types", "reblogs", "notify",
	"notifications", "duration", "display_name", "note", "locked", "bot", "username", "email", "password",
	"agreement", "locale", "reason", "client_name", "redirect_uris", "scopes", "scope", "website", "grant_type",
	"client_id", "client_secret", "code", "redirect_uri", "code_verifier", "token", "response_type",
	"code_challenge", "code_challenge_method", "page", "acct", "local", "remote", "only_media", "exclude_replies",
	"exclude_reblogs", "pinned", "tagged", "stream", "tag", "access_token", "fields_attributes", "x", "",
}

func (g gen) pick(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[g.r.IntN(len(xs))]
}

// value returns a parameter value: often a plausible one, sometimes hostile.
func (g gen) value() string {
	switch g.r.IntN(14) {
	case 0:
		return g.pick(g.t.IDs)
	case 1:
		return strconv.FormatInt(g.r.Int64(), 10)
	case 2:
		return g.pick([]string{"0", "-1", "9223372036854775808", "1e9", "0x10", " 5", "", "null", "true", "false", "[]", "{}"})
	case 3:
		return strings.Repeat(g.pick([]string{"a", "长", "😀", "\u0301", "%", "'", "\""}), g.r.IntN(2000))
	case 4:
		return string([]byte{0xff, 0xfe, byte(g.r.IntN(256)), 'a'})
	case 5:
		return g.pick([]string{"public", "unlisted", "private", "direct", "friends", "accounts", "statuses", "hashtags",
			"mention", "follow", "favourite", "reblog", "follow_request", "password", "client_credentials",
			"authorization_code", "read", "write follow", "read:" + strings.Repeat("x", 600), "urn:ietf:wg:oauth:2.0:oob", "S256"})
	case 6:
		return "<script>alert(1)</script>' OR 1=1 --"
	case 7:
		return "book:" + g.pick(g.t.Words)
	case 8:
		return "@" + g.pick(g.t.Words) + " #" + g.pick(g.t.Words) + " hello"
	case 9:
		return "\x00\r\n\t"
	case 10:
		return strconv.Itoa(g.r.IntN(100))
	case 11:
		return "https://example.com/" + strings.Repeat("p", g.r.IntN(3000))
	case 12:
		return g.pick(g.t.Words)
	}
	return "hello 你好"
}

// pathValue fills a path wildcard.
func (g gen) pathValue(name string) string {
	switch g.r.IntN(8) {
	case 0, 1, 2, 3:
		return g.pick(g.t.IDs)
	case 4:
		return g.pick(g.t.Words)
	case 5:
		return strconv.FormatInt(g.r.Int64(), 10)
	case 6:
		return url.PathEscape(g.value())
	}
	return g.pick([]string{"0", "-1", "abc", "%00", "..", strings.Repeat("9", 40), "%FF", "book"})
}

// request builds a request for route.
func (g gen) request(route string) request {
	method, path, _ := strings.Cut(route, " ")
	if i := strings.Index(path, "{$}"); i >= 0 {
		path = path[:i]
	}
	path = wildcardRE.ReplaceAllStringFunc(path, func(w string) string { return g.pathValue(w[1 : len(w)-1]) })
	if g.r.IntN(20) == 0 { // sometimes another method
		method = g.pick([]string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
	}
	req := request{method: method}
	switch g.r.IntN(8) {
	case 0:
	case 1:
		req.token = "garbage" + strconv.Itoa(g.r.IntN(1000))
	default:
		req.token = g.pick(g.t.Tokens)
	}
	params := url.Values{}
	for n := g.r.IntN(7); n > 0; n-- {
		k := g.pick(paramNames)
		if g.r.IntN(4) == 0 {
			k += "[]"
		}
		params.Add(k, g.value())
	}
	if g.r.IntN(30) == 0 { // many parameters
		for i := 0; i < 5000; i++ {
			params.Add("id[]", strconv.Itoa(i))
		}
	}
	query := ""
	switch enc := g.r.IntN(5); {
	case enc == 0 || method == "GET" && enc < 3:
		query = params.Encode()
	case enc == 1:
		req.ctype, req.body = "application/x-www-form-urlencoded", []byte(params.Encode())
	case enc == 2:
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, vs := range params {
			for _, v := range vs {
				mw.WriteField(k, v)
			}
		}
		mw.Close()
		req.ctype, req.body = mw.FormDataContentType(), buf.Bytes()
	case enc == 3:
		req.ctype, req.body = "application/json", g.jsonBody(params)
	default:
		req.ctype = g.pick([]string{"application/json", "text/plain", "application/x-www-form-urlencoded; charset=bogus", "multipart/form-data", "invalid/"})
		req.body = []byte(g.value())
	}
	req.url = strings.TrimRight(g.t.BaseURL, "/") + path
	if query != "" {
		req.url += "?" + query
	}
	return req
}

// jsonBody encodes params as a JSON object, sometimes nested or broken.
func (g gen) jsonBody(params url.Values) []byte {
	obj := map[string]any{}
	for k, vs := range params {
		if len(vs) == 1 && g.r.IntN(2) == 0 {
			obj[k] = vs[0]
		} else {
			obj[k] = vs
		}
	}
	switch g.r.IntN(6) {
	case 0: // deep
		var v any = "x"
		for i := g.r.IntN(9000); i > 0; i-- {
			v = map[string]any{"a": v}
		}
		obj["deep"] = v
	case 1: // wide under a long key
		inner := map[string]any{}
		for i := 0; i < 3000; i++ {
			inner["k"+strconv.Itoa(i)] = i
		}
		obj[strings.Repeat("K", 5000)] = inner
	case 2: // broken
		b, _ := json.Marshal(obj)
		return b[:g.r.IntN(len(b)+1)]
	}
	b, _ := json.Marshal(obj)
	return b
}
