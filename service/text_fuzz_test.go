package service

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzStatusText: any status text (and object key) gives at most maxMentions
// distinct mentions, each a valid username that occurs in the text, at
// most maxTags distinct lower-case hashtags that occur in the text, and an
// object key that checkObject accepts only if it has the object syntax.
func FuzzStatusText(f *testing.F) {
	for _, s := range []string{"hello @alice and @Bob@example.com #Tag #麻雀 #123", "@a@b@c ##x #_ #a_1",
		strings.Repeat("@u ", 40), "e-mail a@b.c, url https://x.y/#frag", "\xff@alice #\xfe"} {
		f.Add(s, "book:isbn-1")
	}
	f.Fuzz(func(t *testing.T, text, object string) {
		mentions := parseMentions(text, "example.com")
		if len(mentions) > maxMentions {
			t.Fatalf("%d mentions", len(mentions))
		}
		seen := map[string]bool{}
		for _, m := range mentions {
			if !usernameRE.MatchString(m) || !strings.Contains(text, "@"+m) || seen[strings.ToLower(m)] {
				t.Fatalf("mention %q of %q", m, text)
			}
			seen[strings.ToLower(m)] = true
		}
		tags := parseTags(text)
		if len(tags) > maxTags {
			t.Fatalf("%d tags", len(tags))
		}
		for _, tag := range tags {
			if tag != strings.ToLower(tag) || !keyedTagRE.MatchString(tag) || !strings.Contains(strings.ToLower(text), "#"+tag) {
				t.Fatalf("tag %q of %q", tag, text)
			}
		}
		if err := checkObject(object); err == nil && object != "" {
			if !utf8.ValidString(object) || !objectRE.MatchString(object) || len(object) > 1024 {
				t.Fatalf("object %q accepted", object)
			}
		}
		if err := checkText("Text", text, 500); err == nil && (!utf8.ValidString(text) || utf8.RuneCountInString(text) > 500) {
			t.Fatalf("text accepted: %q", text)
		}
	})
}
