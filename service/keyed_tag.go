package service

import (
	"context"
	"regexp"
	"strings"

	"sparrow"
)

// The tag feed: public statuses with a hashtag (no reblogs), one list per
// lower-cased tag, stored under "tag:<tag>". Read by GET
// /api/v1/timelines/tag/{hashtag}.
func init() {
	registerKeyedFeed(keyedFeed{
		name: "tag",
		keys: func(st *sparrow.Status) []string {
			if st.Visibility != sparrow.Public || st.ReblogOfID != 0 {
				return nil
			}
			return st.Tags
		},
		normalize: func(tag string) (string, bool) {
			name := strings.ToLower(strings.TrimPrefix(tag, "#"))
			return name, keyedTagRE.MatchString(name)
		},
		storageKey: func(tag string, _ *sparrow.Status) string { return keyedTagKey(tag) },
		read: func(ctx context.Context, t *Timelines, tag string, p sparrow.Page) ([]sparrow.FeedItem, error) {
			return readStored(ctx, t, keyedTagKey(tag), p)
		},
	})
}

// keyedTagRE is a hashtag as it may appear in a URL: letters (any script),
// digits and '_', at most 100 of them (parseTags lower-cases what it stores).
var keyedTagRE = regexp.MustCompile(`^[\p{L}\p{N}_]{1,100}$`)

func keyedTagKey(tag string) string { return "tag:" + tag }

// Tag returns the public statuses with a hashtag, newest first. The tag is
// case-insensitive and may start with '#'; anything but 1-100 letters,
// digits and '_' is ENotFound.
func (t *Timelines) Tag(ctx context.Context, v sparrow.Viewer, tag string, p sparrow.Page) ([]*sparrow.StatusView, error) {
	return t.Keyed(ctx, v, "tag", tag, p)
}
