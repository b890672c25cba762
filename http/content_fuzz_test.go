package http

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// allowedTag matches the markup the formatter writes itself.
var allowedTag = regexp.MustCompile(`</?p>|<br />|<a href="[^"<>]*"( [a-z]+="[^"<>]*")*>|</a>|<span( [a-z]+="[^"<>]*")*>|</span>`)

// FuzzContent: the HTML of any text contains no markup but the formatter's
// own (every character of the text is escaped), and is valid UTF-8 when the
// text is.
func FuzzContent(f *testing.F) {
	for _, s := range []string{"hi @alice #tag https://x.y/a?b=<c>&d", "<script>alert(1)</script>", "a\n\nb\nc",
		`" onmouseover="x`, "@alice@example.com https://x.y/\"><img>", "#\u200b #x\xff"} {
		f.Add(s)
	}
	cf := contentFormatter{base: "https://example.com", domain: "example.com",
		mentions: map[string]string{"alice": `https://example.com/@alice`}}
	f.Fuzz(func(t *testing.T, text string) {
		out := cf.format(text)
		if rest := allowedTag.ReplaceAllString(out, ""); strings.ContainsAny(rest, "<>") {
			t.Fatalf("markup from the text in %q (of %q)", out, text)
		}
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid text: %q", out)
		}
	})
}
