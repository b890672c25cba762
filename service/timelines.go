package service

import (
	"context"

	"sparrow"
)

// Timelines implements sparrow.TimelineService: the home feed (Feed, in
// feed_*.go) and the keyed feeds (Keyed, keyed_feeds.go; tag, public and
// object in keyed_tag.go, keyed_public.go and keyed_object.go).
type Timelines struct {
	d        Deps
	c        Config
	statuses *Statuses
	cache    *FollowingCache
	feed     *Feed
}

var _ sparrow.TimelineService = (*Timelines)(nil)

// Home returns v's home timeline page: the reader's inbox above its floor,
// merged by id with the recent lists of the hot accounts it follows (and their
// profile feeds past the end of those lists), continued below the floor by the
// pull path; filtered by the routing policies and extended until the page is
// full or the feed is exhausted. A reader without an inbox (new, returning
// after inactivity, or a lost cache) gets the page by pull inside this request
// while the inbox is rebuilt in the background.
func (t *Timelines) Home(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]*sparrow.StatusView, error) {
	return t.feed.Home(ctx, v, p)
}
