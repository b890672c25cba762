package http

import (
	"context"
	"reflect"
	"testing"

	"sparrow"
)

// get walks nested JSON objects.
func get(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[p]
	}
	return v
}

func TestInstanceV1(t *testing.T) {
	h := newHarness(t)
	m := decodeMap(t, h.do(t, req{method: "GET", path: "/api/v1/instance"}).Body.Bytes())
	want := map[string]any{
		"uri": testDomain, "title": "Sparrow Test", "short_description": "A test server", "description": "A test server",
		"email": "admin@sparrow.test", "version": "4.3.0 (compatible; Sparrow 0.1.0)",
		"urls":          map[string]any{"streaming_api": "wss://sparrow.test"},
		"stats":         map[string]any{"user_count": float64(2), "status_count": float64(5), "domain_count": float64(0)},
		"languages":     []any{"en"},
		"registrations": true, "approval_required": false, "invites_enabled": false,
		"rules": []any{},
	}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	if !hasNull(m, "contact_account") || !hasNull(m, "thumbnail") {
		t.Errorf("contact_account = %#v, thumbnail = %#v, want null", m["contact_account"], m["thumbnail"])
	}
	if get(m, "configuration", "statuses", "max_characters") != float64(500) ||
		get(m, "configuration", "statuses", "characters_reserved_per_url") != float64(23) ||
		get(m, "configuration", "statuses", "max_media_attachments") != float64(0) ||
		get(m, "configuration", "accounts", "max_featured_tags") != float64(10) {
		t.Errorf("configuration = %v", m["configuration"])
	}
	if get(m, "configuration", "urls") != nil || get(m, "configuration", "translation") != nil {
		t.Error("v1 configuration carries v2 fields")
	}
}

func TestInstanceV2(t *testing.T) {
	h := newHarness(t)
	m := decodeMap(t, h.do(t, req{method: "GET", path: "/api/v2/instance"}).Body.Bytes())
	checks := map[string]struct {
		path []string
		want any
	}{
		"domain":       {[]string{"domain"}, testDomain},
		"version":      {[]string{"version"}, "4.3.0 (compatible; Sparrow 0.1.0)"},
		"source_url":   {[]string{"source_url"}, "https://example.com/sparrow"},
		"usage":        {[]string{"usage", "users", "active_month"}, float64(2)},
		"thumbnail":    {[]string{"thumbnail", "url"}, testBase + "/thumbnail.png"},
		"streaming":    {[]string{"configuration", "urls", "streaming"}, "wss://sparrow.test"},
		"max chars":    {[]string{"configuration", "statuses", "max_characters"}, float64(500)},
		"translation":  {[]string{"configuration", "translation", "enabled"}, false},
		"registration": {[]string{"registrations", "enabled"}, true},
		"approval":     {[]string{"registrations", "approval_required"}, false},
		"email":        {[]string{"contact", "email"}, "admin@sparrow.test"},
		"rules":        {[]string{"rules"}, []any{}},
		"mime types":   {[]string{"configuration", "media_attachments", "supported_mime_types"}, []any{}},
	}
	for name, c := range checks {
		if got := get(m, c.path...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v = %#v, want %#v", name, c.path, got, c.want)
		}
	}
	if !hasNull(get(m, "registrations").(map[string]any), "message") || !hasNull(get(m, "contact").(map[string]any), "account") {
		t.Error("registrations.message and contact.account must be null")
	}
}

func TestInstanceDefaults(t *testing.T) {
	h := newHarness(t)
	h.srv.Instance = func(context.Context) sparrow.Instance { return sparrow.Instance{Version: "4.2.0 (compatible; X)"} }
	h.srv.BaseURL = "http://localhost:8080"
	h.h = h.srv.Handler()
	m := decodeMap(t, h.do(t, req{method: "GET", path: "/api/v1/instance"}).Body.Bytes())
	if m["uri"] != testDomain || m["version"] != "4.2.0 (compatible; X)" ||
		get(m, "urls", "streaming_api") != "ws://localhost:8080" ||
		get(m, "configuration", "statuses", "max_characters") != float64(defaultMaxChars) {
		t.Errorf("defaults: uri %v, version %v, urls %v, configuration %v", m["uri"], m["version"], m["urls"], m["configuration"])
	}

	h.srv.Instance = nil
	h.h = h.srv.Handler()
	if w := h.do(t, req{method: "GET", path: "/api/v2/instance"}); w.Code != 503 {
		t.Errorf("no Instance func: %d, want 503", w.Code)
	}
}
