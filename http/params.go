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

// maxMultipartMemory bounds the part of a multipart body kept in memory; the
// rest spills to temporary files (the body limit still applies).
const maxMultipartMemory = 8 << 20

// parseParams reads the query string and the body of r. It returns
// EBadRequest for a malformed query string, form or JSON body (a JSON body
// must be an object; an empty body is no parameters), and an error wrapping
// *http.MaxBytesError when the body exceeds the limit set by the body-limit
// middleware (writeError turns it into 413).
func parseParams(r *http.Request) (*params, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EBadRequest, err, "Invalid query string")
	}
	merged := url.Values{}
	addNormalized(merged, q)

	body, err := parseBody(r)
	if err != nil {
		return nil, err
	}
	for k, vs := range body {
		merged[k] = vs
	}
	return &params{v: merged}, nil
}

// addNormalized adds src to dst, dropping a trailing "[]" from each key.
func addNormalized(dst, src url.Values) {
	for k, vs := range src {
		base := strings.TrimSuffix(k, "[]")
		dst[base] = append(dst[base], vs...)
	}
}

// parseBody returns the body's parameters, normalised, according to its
// Content-Type. Other content types contribute no parameters.
func parseBody(r *http.Request) (url.Values, error) {
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
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return nil, sparrow.WrapError(sparrow.EBadRequest, err, "Invalid JSON body: expected an object")
		}
		if dec.More() {
			return nil, sparrow.Errorf(sparrow.EBadRequest, "Invalid JSON body: trailing data")
		}
		flattenJSON(out, "", obj)
	case mt == "application/x-www-form-urlencoded":
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, bodyError(err)
		}
		form, err := url.ParseQuery(string(data))
		if err != nil {
			return nil, sparrow.WrapError(sparrow.EBadRequest, err, "Invalid form body")
		}
		addNormalized(out, form)
	case mt == "multipart/form-data":
		if err := r.ParseMultipartForm(maxMultipartMemory); err != nil {
			return nil, bodyError(err)
		}
		addNormalized(out, r.MultipartForm.Value)
	}
	return out, nil
}

// bodyError classifies a failure to read the body: too large (kept as the
// *http.MaxBytesError cause) or malformed.
func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return sparrow.WrapError(sparrow.EBadRequest, err, "Request body too large")
	}
	return sparrow.WrapError(sparrow.EBadRequest, err, "Invalid request body")
}

// flattenJSON adds the JSON value v under key (see params for the rules).
func flattenJSON(out url.Values, key string, v any) {
	switch x := v.(type) {
	case nil:
	case map[string]any:
		for k, sub := range x {
			k = strings.TrimSuffix(k, "[]")
			if key != "" {
				k = key + "[" + k + "]"
			}
			flattenJSON(out, k, sub)
		}
	case []any:
		for i, el := range x {
			switch el.(type) {
			case map[string]any, []any:
				flattenJSON(out, key+"["+strconv.Itoa(i)+"]", el)
			default:
				flattenJSON(out, key, el)
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
