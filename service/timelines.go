package service

import (
	"context"
	"strings"

	"sparrow"
)

// Timelines implements sparrow.TimelineService: the home feed (Feed, in
// feed_*.go) and the keyed feeds (tag, public, object; keyed_timelines.go).
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

// Tag returns the public statuses with a hashtag, newest first. The tag is
// case-insensitive and may start with '#'; anything but 1-100 letters,
// digits and '_' is ENotFound.
func (t *Timelines) Tag(ctx context.Context, v sparrow.Viewer, tag string, p sparrow.Page) ([]*sparrow.StatusView, error) {
	name := strings.ToLower(strings.TrimPrefix(tag, "#"))
	if !keyedTagRE.MatchString(name) {
		return nil, notFound
	}
	return t.keyedRead(ctx, v, p, func(p sparrow.Page) ([]sparrow.FeedItem, error) {
		return t.d.KeyedFeeds.ReadFeed(ctx, keyedTagKey(name), p)
	})
}

// Object returns the public and unlisted statuses posted about an object
// (Sparrow's extension), newest first. "type:key" must match the object
// syntax of posting (objectRE), or it is ENotFound.
func (t *Timelines) Object(ctx context.Context, v sparrow.Viewer, objType, key string, p sparrow.Page) ([]*sparrow.StatusView, error) {
	obj := objType + ":" + key
	if checkObject(obj) != nil {
		return nil, notFound
	}
	return t.keyedRead(ctx, v, p, func(p sparrow.Page) ([]sparrow.FeedItem, error) {
		return t.d.KeyedFeeds.ReadFeed(ctx, keyedObjKey(obj), p)
	})
}

// Public returns the local public timeline, newest first, from the daily
// buckets (see the keyed feeds above for the look-back bound).
func (t *Timelines) Public(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]*sparrow.StatusView, error) {
	return t.keyedRead(ctx, v, p, func(p sparrow.Page) ([]sparrow.FeedItem, error) {
		return t.keyedPublicPage(ctx, p)
	})
}
