package http

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Patterns of the plain-text formatter. A URL runs to the next space, quote or
// angle bracket; a mention is @username or @username@domain[:port]; a hashtag
// is # followed by letters, digits and underscores, with at least one letter
// or underscore. Mentions and hashtags must not follow a word character,
// '=', '/', ')' or '@' (checked in code: RE2 has no look-behind).
var tokenRE = regexp.MustCompile(
	`(https?://[^\s<>"]+)` +
		`|@([A-Za-z0-9_]+(?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)(?:@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::[0-9]+)?))?` +
		`|#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*)`)

// paragraphRE separates paragraphs: a line break, blank lines, a line break.
var paragraphRE = regexp.MustCompile(`\n[ \t\r]*\n\s*`)

// contentFormatter turns plain text into Mastodon's HTML: every character
// escaped, paragraphs in <p>, single line breaks as <br />, URLs linked,
// hashtags linked to base/tags/name, and mentions of known accounts linked to
// their profiles (unknown ones stay text).
type contentFormatter struct {
	base     string            // BaseURL
	domain   string            // this server's domain, for @user@domain mentions
	mentions map[string]string // lower-case username → profile URL
}

// format returns the HTML content of text; empty (or blank) text gives "".
func (f contentFormatter) format(text string) string {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if text == "" {
		return ""
	}
	var b strings.Builder
	for _, para := range paragraphRE.Split(text, -1) {
		b.WriteString("<p>")
		for i, line := range strings.Split(para, "\n") {
			if i > 0 {
				b.WriteString("<br />")
			}
			f.linkify(&b, line)
		}
		b.WriteString("</p>")
	}
	return b.String()
}

// linkify writes one line of text, escaped, with its links.
func (f contentFormatter) linkify(b *strings.Builder, line string) {
	if !strings.ContainsAny(line, "@#") && !strings.Contains(line, "://") {
		b.WriteString(html.EscapeString(line)) // no token can match: skip the regexp
		return
	}
	last := 0
	for _, m := range tokenRE.FindAllStringSubmatchIndex(line, -1) {
		start, end := m[0], m[1]
		var link string
		switch {
		case m[2] >= 0: // URL
			end = m[2] + len(trimURL(line[m[2]:m[3]]))
			link = f.urlLink(line[start:end])
		case m[4] >= 0: // mention
			if boundaryOK(line, start) {
				domain := ""
				if m[6] >= 0 {
					domain = line[m[6]:m[7]]
				}
				link = f.mentionLink(line[m[4]:m[5]], domain)
			}
		case m[8] >= 0: // hashtag
			if boundaryOK(line, start) {
				link = f.hashtagLink(line[m[8]:m[9]])
			}
		}
		if link == "" {
			continue // stays text; written with the next segment
		}
		b.WriteString(html.EscapeString(line[last:start]))
		b.WriteString(link)
		last = end
	}
	b.WriteString(html.EscapeString(line[last:]))
}

// boundaryOK reports whether a mention or hashtag may start at i: at the
// start of the line or after a character that does not glue it to a word.
func boundaryOK(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_=/)@#", r))
}

// trimURL drops trailing punctuation that usually ends a sentence, and a
// closing parenthesis without an opening one in the URL.
func trimURL(u string) string {
	for u != "" {
		last := u[len(u)-1]
		switch {
		case strings.IndexByte(".,;:!?'", last) >= 0:
			u = u[:len(u)-1]
		case last == ')' && strings.Count(u, "(") < strings.Count(u, ")"):
			u = u[:len(u)-1]
		default:
			return u
		}
	}
	return u
}

func (f contentFormatter) urlLink(raw string) string {
	if u, err := url.Parse(raw); err != nil || u.Host == "" {
		return ""
	}
	e := html.EscapeString(raw)
	return `<a href="` + e + `" target="_blank" rel="nofollow noopener" translate="no">` + e + `</a>`
}

func (f contentFormatter) mentionLink(username, domain string) string {
	if domain != "" && !strings.EqualFold(domain, f.domain) {
		return "" // remote accounts are not known here
	}
	href, ok := f.mentions[strings.ToLower(username)]
	if !ok {
		return ""
	}
	return `<span class="h-card" translate="no"><a href="` + html.EscapeString(href) +
		`" class="u-url mention">@<span>` + html.EscapeString(username) + `</span></a></span>`
}

func (f contentFormatter) hashtagLink(name string) string {
	return `<a href="` + html.EscapeString(tagURL(f.base, name)) + `" class="mention hashtag" rel="tag">#<span>` +
		html.EscapeString(name) + `</span></a>`
}

// tagURL is the URL of a hashtag's page (lower-cased, path-escaped).
func tagURL(base, name string) string {
	return base + "/tags/" + url.PathEscape(strings.ToLower(name))
}
