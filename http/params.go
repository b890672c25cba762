package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"sparrow"
)

// params are a request's parameters, merged from the query string and the
// body, which may be application/x-www-form-urlencoded, multipart/form-data or
// JSON, as Mastodon accepts all of them.
//
// Keys are normalised so that array parameters read the same whatever their
// encoding: a trailing "[]" is dropped (form "id[]=1&id[]=2", JSON "id": [1, 2]
// and JSON "id[]": [1, 2] all give "id" = ["1", "2"], and "id=1" gives ["1"]);
// values keep their order within one spelling of a key, not across "id" and "id[]".
// Nested JSON objects are flattened the way Rails encodes nested forms:
// {"poll": {"options": ["a"]}} gives "poll[options]" = ["a"]; objects inside
// arrays get an index: "fields[0][name]". JSON scalars become strings (true,
// false, numbers as written); null and empty arrays leave the key absent.
//
// A key present in the body replaces the same key of the query string.
// Path wildcards ({id}) are not parameters: read them with r.PathValue.
type params struct {
	v url.Values
}

// Request limits. They are checked while a request is read, before any
// other work and before authentication, so that what a request costs is
// bounded whoever sends it. The body limit is per route (route.maxBody,
// DefaultMaxBodyBytes unless a route says otherwise).
const (
	// maxParams bounds the values of a request, query and body together
	// (a bulk call sends up to sparrow.MaxBulk ids).
	maxParams = 4 * sparrow.MaxBulk
	// maxParamBytes bounds the bytes of the parameters once flattened, keys
	// and values together: nested JSON repeats its outer keys in every
	// inner key, so this, not the body size, bounds the memory it takes.
	maxParamBytes = 1 << 20
	// maxJSONDepth bounds the nesting of a JSON body (Mastodon's deepest
	// parameters, such as fields_attributes[0][name], need 3).
	maxJSONDepth = 8
	// maxMultipartMemory bounds the part of a multipart body kept in
	// memory; the rest spills to temporary files (the body limit applies).
	maxMultipartMemory = 8 << 20
)

// paramsBudget counts what a request's parameters take against the limits.
type paramsBudget struct {
	values, bytes int
}

// add counts one value under key, or returns ETooLarge past a limit.
func (b *paramsBudget) add(key, value string) error {
	b.values++
	b.bytes += len(key) + len(value)
	if b.values > maxParams {
		return sparrow.Errorf(sparrow.ETooLarge, "Too many parameters (at most %d)", maxParams)
	}
	if b.bytes > maxParamBytes {
		return sparrow.Errorf(sparrow.ETooLarge, "Parameters too large (at most %d bytes)", maxParamBytes)
	}
	return nil
}

// parseParams reads the query string and the body of r. It returns
// EBadRequest for a malformed query string, form or JSON body (a JSON body
// must be an object; an empty body is no parameters), ETooLarge for a body
// over the route's limit (set by the route wrapper) or parameters over
// maxParams or maxParamBytes, and EInvalid for JSON nested deeper than
// maxJSONDepth.
func parseParams(r *http.Request) (*params, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EBadRequest, err, "Invalid query string")
	}
	var budget paramsBudget
	merged := url.Values{}
	if err = addNormalized(merged, q, &budget); err != nil {
		return nil, err
	}
	body, err := parseBody(r, &budget)
	if err != nil {
		return nil, err
	}
	for k, vs := range body {
		merged[k] = vs
	}
	return &params{v: merged}, nil
}

// addNormalized adds src to dst, dropping a trailing "[]" from each key,
// within budget.
func addNormalized(dst, src url.Values, budget *paramsBudget) error {
	for k, vs := range src {
		base := strings.TrimSuffix(k, "[]")
		for _, v := range vs {
			if err := budget.add(base, v); err != nil {
				return err
			}
		}
		dst[base] = append(dst[base], vs...)
	}
	return nil
}

// parseBody returns the body's parameters, normalised, according to its
// Content-Type. Other content types contribute no parameters.
func parseBody(r *http.Request, budget *paramsBudget) (url.Values, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EBadRequest, err, "Invalid Content-Type")
	}
	out := url.Values{}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, bodyError(err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, nil
		}
		if err := flattenJSON(out, data, budget); err != nil {
			return nil, err
		}
	case mt == "application/x-www-form-urlencoded":
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, bodyError(err)
		}
		form, err := url.ParseQuery(string(data))
		if err != nil {
			return nil, sparrow.WrapError(sparrow.EBadRequest, err, "Invalid form body")
		}
		if err := addNormalized(out, form, budget); err != nil {
			return nil, err
		}
	case mt == "multipart/form-data":
		if err := r.ParseMultipartForm(maxMultipartMemory); err != nil {
			return nil, bodyError(err)
		}
		if err := addNormalized(out, r.MultipartForm.Value, budget); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bodyError classifies a failure to read the body: over the route's limit
// (ETooLarge) or malformed.
func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return sparrow.WrapError(sparrow.ETooLarge, err, "Request body too large (at most %d bytes)", tooBig.Limit)
	}
	return sparrow.WrapError(sparrow.EBadRequest, err, "Invalid request body")
}

// flattenJSON adds the parameters of a JSON object body to out (see params
// for the rules), reading it token by token: nothing deeper than
// maxJSONDepth, and nothing past the budget, is ever built.
func flattenJSON(out url.Values, data []byte, budget *paramsBudget) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	f := &flattener{dec: dec, out: out, budget: budget}
	tok, err := dec.Token()
	if err != nil {
		return sparrow.WrapError(sparrow.EBadRequest, err, "Invalid JSON body: expected an object")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return sparrow.Errorf(sparrow.EBadRequest, "Invalid JSON body: expected an object")
	}
	if err := f.object("", 1); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return sparrow.Errorf(sparrow.EBadRequest, "Invalid JSON body: trailing data")
	}
	return nil
}

// flattener walks one JSON body.
type flattener struct {
	dec    *json.Decoder
	out    url.Values
	budget *paramsBudget
}

func (f *flattener) syntax(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return sparrow.WrapError(sparrow.EBadRequest, err, "Invalid JSON body")
}

// object reads the members of an object whose '{' was read, at depth,
// under prefix ("" at the top), up to and including its '}'. A member name
// that repeats replaces what the earlier member gave, as encoding/json and
// Rails read such objects.
func (f *flattener) object(prefix string, depth int) error {
	var names map[string]bool
	for f.dec.More() {
		tok, err := f.dec.Token()
		if err != nil {
			return f.syntax(err)
		}
		name, _ := tok.(string) // object keys are strings
		k := strings.TrimSuffix(name, "[]")
		if prefix != "" {
			k = prefix + "[" + k + "]"
		}
		if names == nil {
			names = map[string]bool{}
		}
		if names[name] {
			f.drop(k)
		}
		names[name] = true
		if err := f.value(k, depth, -1); err != nil {
			return err
		}
	}
	if _, err := f.dec.Token(); err != nil { // '}'
		return f.syntax(err)
	}
	return nil
}

// array reads the elements of an array whose '[' was read, at depth, up to
// and including its ']': scalars are values of key, objects and arrays get
// an index ("key[0][name]").
func (f *flattener) array(key string, depth int) error {
	for i := 0; f.dec.More(); i++ {
		if err := f.value(key, depth, i); err != nil {
			return err
		}
	}
	if _, err := f.dec.Token(); err != nil { // ']'
		return f.syntax(err)
	}
	return nil
}

// value reads one value for key; index ≥ 0 is its place in an array, which
// a nested object or array gets in its key.
func (f *flattener) value(key string, depth int, index int) error {
	tok, err := f.dec.Token()
	if err != nil {
		return f.syntax(err)
	}
	switch x := tok.(type) {
	case json.Delim:
		if depth >= maxJSONDepth {
			return sparrow.Errorf(sparrow.EInvalid, "JSON body nested too deeply (at most %d levels)", maxJSONDepth)
		}
		if index >= 0 {
			key += "[" + strconv.Itoa(index) + "]"
		}
		if x == '{' {
			return f.object(key, depth+1)
		}
		return f.array(key, depth+1)
	case nil:
		return nil
	case string:
		return f.add(key, x)
	case json.Number:
		return f.add(key, x.String())
	case bool:
		return f.add(key, strconv.FormatBool(x))
	}
	return nil
}

// drop removes what was added under key and under its nested keys (a
// repeated member; rare, so a scan). The budget keeps counting it.
func (f *flattener) drop(key string) {
	for k := range f.out {
		if k == key || strings.HasPrefix(k, key+"[") {
			delete(f.out, k)
		}
	}
}

func (f *flattener) add(key, value string) error {
	if err := f.budget.add(key, value); err != nil {
		return err
	}
	f.out.Add(key, value)
	return nil
}

// Has reports whether key was sent, even with an empty value.
func (p *params) Has(key string) bool {
	_, ok := p.v[key]
	return ok
}

// String returns the first value of key, or "".
func (p *params) String(key string) string { return p.v.Get(key) }

// OptString returns the first value of key, or nil if key was not sent.
func (p *params) OptString(key string) *string {
	if !p.Has(key) {
		return nil
	}
	s := p.v.Get(key)
	return &s
}

// Strings returns all the values of key (an id[]-style array), or nil.
func (p *params) Strings(key string) []string { return p.v[key] }

// Bool returns key as a boolean, as Mastodon (Rails) reads them: absent, "",
// "0", "f", "false", "off", "n" and "no" (any case) are false; anything else,
// such as "true", "1" or "on", is true.
func (p *params) Bool(key string) bool { return parseBool(p.v.Get(key)) }

// OptBool returns key as a boolean (see Bool), or nil if key was not sent.
func (p *params) OptBool(key string) *bool {
	if !p.Has(key) {
		return nil
	}
	b := p.Bool(key)
	return &b
}

func parseBool(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "f", "false", "off", "n", "no":
		return false
	}
	return true
}

// Int returns key as an integer, or def if absent or empty. A malformed
// integer is EBadRequest.
func (p *params) Int(key string, def int) (int, error) {
	s := strings.TrimSpace(p.v.Get(key))
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, sparrow.Errorf(sparrow.EBadRequest, "Invalid value for %s", key)
	}
	return n, nil
}

// ID returns key as an id, or 0 if absent or empty. A malformed id is the
// ENotFound error of sparrow.ParseID ("Record not found"): it names nothing.
func (p *params) ID(key string) (sparrow.ID, error) {
	s := strings.TrimSpace(p.v.Get(key))
	if s == "" {
		return 0, nil
	}
	return sparrow.ParseID(s)
}

// IDs returns all the values of key as ids, skipping empty values; a
// malformed id is ENotFound, as for ID.
func (p *params) IDs(key string) ([]sparrow.ID, error) {
	var ids []sparrow.ID
	for _, s := range p.v[key] {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		id, err := sparrow.ParseID(s)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// pathID parses the {name} path wildcard of r as an id; a malformed id is
// ENotFound.
func pathID(r *http.Request, name string) (sparrow.ID, error) {
	return sparrow.ParseID(r.PathValue(name))
}
