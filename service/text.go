package service

import (
	"regexp"
	"strings"
)

// mentionRE matches @user and @user@domain at a word start.
var mentionRE = regexp.MustCompile(`(?:^|[^\w/@])@([A-Za-z0-9_]{1,30})(?:@([A-Za-z0-9.\-]+[A-Za-z0-9]))?`)

// hashtagRE matches #tag at a word start; tags may be in any script (#微博).
var hashtagRE = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_/&#])#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*)`)

// objectRE is the object-feed key "type:key" (docs/seeds.md#seed-002's object feed).
var objectRE = regexp.MustCompile(`^[a-z0-9_]{1,32}:[^\s]{1,200}$`)

// Limits on what one status may carry.
const (
	maxMentions = 20
	maxTags     = 20
)

// parseMentions returns the distinct local usernames mentioned in text, in
// order. Mentions of other domains are ignored: Sparrow does not federate.
func parseMentions(text, domain string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionRE.FindAllStringSubmatch(text, -1) {
		if m[2] != "" && !strings.EqualFold(m[2], domain) {
			continue
		}
		k := strings.ToLower(m[1])
		if !seen[k] && len(out) < maxMentions {
			seen[k] = true
			out = append(out, m[1])
		}
	}
	return out
}

// parseTags returns the distinct hashtags of text, lower-cased, in order.
func parseTags(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range hashtagRE.FindAllStringSubmatch(text, -1) {
		k := strings.ToLower(m[1])
		if len(k) <= 100 && !seen[k] && len(out) < maxTags {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
