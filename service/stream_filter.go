package service

import (
	"context"
	"slices"

	"sparrow"
)

// StreamFilter is the routing policy of the live streams (Mastodon's
// streaming API), for statuses that arrive as bus events: it answers, for
// one viewer and one status, whether the status belongs on the viewer's
// home or public stream, and hydrates it for the viewer. It holds no rule of
// its own: home is the home feed's read policy (Feed.admit) and public is the
// public timeline's (onPublicFeed and keyedViews), so a stream shows
// exactly what the timelines would show. It is safe for concurrent use.
type StreamFilter struct {
	feed      *Feed
	timelines *Timelines
}

// NewStreamFilter returns the stream policy of t and of its home feed.
func NewStreamFilter(t *Timelines) *StreamFilter {
	return &StreamFilter{feed: t.feed, timelines: t}
}

// Home returns s, as stored now, hydrated for v if it belongs in v's home
// feed, and nil otherwise: its author is v or an account v follows (v's
// own follow rows), v may see it (visibility), and v neither blocks nor mutes
// its author nor is blocked by it. A deleted status and an anonymous viewer
// get nil. The status is reloaded from the store, so an edit that arrives
// late, or a status deleted meanwhile, is judged as it is now.
func (f *StreamFilter) Home(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (*sparrow.StatusView, error) {
	if v.Anonymous() || s == nil || s.Deleted() {
		return nil, nil
	}
	follows, err := f.feed.following(ctx, v.AccountID)
	if err != nil {
		return nil, err
	}
	if _, ok := slices.BinarySearch(follows, s.AccountID); !ok {
		return nil, nil // the cheap test first: most viewers follow most authors not
	}
	return first(f.feed.admit(ctx, v, follows, []sparrow.FeedItem{itemOf(s)}))
}

// InHome reports whether author's statuses can be in user's home: author is
// user or is followed by user. A deletion is announced on the home streams
// for which this holds.
func (f *StreamFilter) InHome(ctx context.Context, user, author sparrow.ID) (bool, error) {
	if user == 0 {
		return false, nil
	}
	follows, err := f.feed.following(ctx, user)
	if err != nil {
		return false, err
	}
	_, ok := slices.BinarySearch(follows, author)
	return ok, nil
}

// OnPublic reports whether s, as given (a deleted status as it was), belongs
// on the local public timeline: public and not a reblog (replies included).
func (f *StreamFilter) OnPublic(s *sparrow.Status) bool {
	if s == nil {
		return false
	}
	return onPublicFeed(s)
}

// Public returns s, as stored now, hydrated for v if it belongs on v's
// public stream, and nil otherwise: it is on the public timeline (OnPublic)
// and, for a signed-in v, is not by an account v blocks, mutes or is blocked
// by. v may be anonymous.
func (f *StreamFilter) Public(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (*sparrow.StatusView, error) {
	if !f.OnPublic(s) || s.Deleted() {
		return nil, nil
	}
	return first(f.timelines.keyedViews(ctx, v, []sparrow.FeedItem{itemOf(s)}))
}

// first returns the only view of a one-item filter, or nil.
func first(views []*sparrow.StatusView, err error) (*sparrow.StatusView, error) {
	if err != nil || len(views) == 0 {
		return nil, err
	}
	return views[0], nil
}
