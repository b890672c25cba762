package service

import (
	"context"
	"slices"
	"time"

	"sparrow"
)

// The public feed: the local public timeline (public statuses, replies
// included, no reblogs), one bucket per UTC day of the status id's time,
// stored under "pub:<YYYYMMDD>", with a directory "pub:days" holding one
// marker item per day that ever had a public status. Its only reader key is
// "". Read by GET /api/v1/timelines/public.
//
// The public timeline is therefore its own time-bucketed feed, never a scan of
// the 256 shards: a read lists the days from the directory, newest first from
// the cursor's day (or all days up to now), at most keyedLookbackDays back,
// and reads the day buckets in turn until the page is full. Empty days cost
// nothing; older statuses than the look-back are not served by this timeline.
func init() {
	registerKeyedFeed(keyedFeed{
		name: "public",
		keys: func(st *sparrow.Status) []string {
			if !onPublicFeed(st) {
				return nil
			}
			return []string{""}
		},
		normalize:  func(key string) (string, bool) { return key, key == "" },
		storageKey: func(_ string, st *sparrow.Status) string { return keyedPublicKey(st.ID.Time()) },
		// The day is in the directory before the status is in its bucket, so
		// that a reader never misses a bucket.
		beforeAdd: func(ctx context.Context, store sparrow.KeyedFeedStore, st *sparrow.Status) error {
			return store.AddToFeeds(ctx, []string{keyedDaysKey}, sparrow.FeedItem{ID: keyedDayMarker(st.ID.Time())})
		},
		read: func(ctx context.Context, t *Timelines, _ string, p sparrow.Page) ([]sparrow.FeedItem, error) {
			return t.keyedPublicPage(ctx, p)
		},
	})
}

const (
	keyedDaysKey      = "pub:days"
	keyedLookbackDays = 400
)

// onPublicFeed reports whether st belongs on the local public timeline:
// public and not a reblog.
func onPublicFeed(st *sparrow.Status) bool {
	return st.Visibility == sparrow.Public && st.ReblogOfID == 0
}

func keyedDay(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

// keyedPublicKey is the public bucket of day (any time within it).
func keyedPublicKey(day time.Time) string { return "pub:" + day.UTC().Format("20060102") }

// keyedDayMarker is the directory item of day: an id inside its first
// millisecond, at least 2 so that marker-1, the exclusive lower bound that
// includes it, is never 0 (which means "unset" in pages).
func keyedDayMarker(day time.Time) sparrow.ID { return sparrow.MinIDAt(keyedDay(day)) + 2 }

// Public returns the local public timeline, newest first, from the daily
// buckets (see the look-back bound above).
func (t *Timelines) Public(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]*sparrow.StatusView, error) {
	return t.Keyed(ctx, v, "public", "", p)
}

// keyedPublicPage reads one page of the public feed across day buckets: it
// lists the non-empty days in the page's window from the directory (one
// read), then reads buckets from the newest (or, for MinID pages, the oldest)
// day until p.Limit items are found. Fewer items means the window is exhausted.
func (t *Timelines) keyedPublicPage(ctx context.Context, p sparrow.Page) ([]sparrow.FeedItem, error) {
	dir := sparrow.Page{Limit: keyedLookbackDays + 1}
	if p.Ascending() {
		dir.MinID = keyedDayMarker(p.MinID.Time()) - 1 // from the cursor's day on, oldest first
		if p.MaxID != 0 {
			dir.MaxID = keyedDayMarker(p.MaxID.Time()) + 1
		}
	} else {
		top := t.keyedNow()
		if p.MaxID != 0 {
			top = p.MaxID.Time()
			dir.MaxID = keyedDayMarker(top) + 1
		}
		dir.SinceID = keyedDayMarker(top.AddDate(0, 0, -keyedLookbackDays)) - 1
		if lo := p.Lower(); lo != 0 {
			dir.SinceID = max(dir.SinceID, keyedDayMarker(lo.Time())-1)
		}
	}
	days, err := t.d.KeyedFeeds.ReadFeed(ctx, keyedDaysKey, dir)
	if err != nil {
		return nil, err
	}
	if p.Ascending() {
		slices.Reverse(days) // oldest day first
	}
	var out []sparrow.FeedItem
	for _, day := range days {
		q := p
		q.Limit = p.Limit - len(out)
		got, err := t.d.KeyedFeeds.ReadFeed(ctx, keyedPublicKey(day.ID.Time()), q)
		if err != nil {
			return nil, err
		}
		if p.Ascending() {
			out = append(got, out...) // a later day: newer items
		} else {
			out = append(out, got...)
		}
		if len(out) >= p.Limit {
			break
		}
	}
	return out, nil
}

func (t *Timelines) keyedNow() time.Time {
	if t.d.Clock == nil {
		return time.Now()
	}
	return t.d.Clock.Now()
}
