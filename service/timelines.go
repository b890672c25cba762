package service

import "sparrow"

// Timelines implements sparrow.TimelineService: the home feed (feed_*.go) and
// the keyed feeds (tag, public, object).
type Timelines struct {
	d        Deps
	c        Config
	statuses *Statuses
	cache    *FollowingCache
	feed     *Feed
}

var _ sparrow.TimelineService = (*Timelines)(nil)
