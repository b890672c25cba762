package service

import (
	"context"
	"regexp"
	"slices"
	"time"

	"sparrow"
)

// Keyed feeds (docs/seeds.md#seed-002): per-purpose feeds keyed by something other than a
// user, written by the KeyedFeeds consumer and read by Timelines' Tag, Public
// and Object. Keys:
//
//	tag:<lower-cased tag>    public statuses with the hashtag (no reblogs)
//	obj:<type>:<key>         public and unlisted statuses about an object
//	pub:<YYYYMMDD>           the local public timeline, one bucket per UTC day
//	                         of the status id's time (public, replies included,
//	                         no reblogs)
//	pub:days                 the directory of public buckets: one marker item
//	                         per day that ever had a public status
//
// The public timeline is therefore its own time-bucketed feed, never a scan of
// the 256 shards: a read lists the days from the directory, newest first from
// the cursor's day (or all days up to now), at most keyedLookbackDays back,
// and reads the day buckets in turn until the page is full. Empty days cost
// nothing; older statuses than the look-back are not served by this timeline.
const (
	keyedDaysKey      = "pub:days"
	keyedLookbackDays = 400
)

var _ sparrow.TimelineService = (*Timelines)(nil)

// keyedTagRE is a hashtag as it may appear in a URL: letters (any script),
// digits and '_', at most 100 of them (parseTags lower-cases what it stores).
var keyedTagRE = regexp.MustCompile(`^[\p{L}\p{N}_]{1,100}$`)

func keyedTagKey(tag string) string  { return "tag:" + tag }
func keyedObjKey(obj string) string  { return "obj:" + obj }
func keyedDay(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

// keyedPublicKey is the public bucket of day (any time within it).
func keyedPublicKey(day time.Time) string { return "pub:" + day.UTC().Format("20060102") }

// keyedDayMarker is the directory item of day: an id inside its first
// millisecond, at least 2 so that marker-1, the exclusive lower bound that
// includes it, is never 0 (which means "unset" in pages).
func keyedDayMarker(day time.Time) sparrow.ID { return sparrow.MinIDAt(keyedDay(day)) + 2 }

// keyedStatusKeys returns the keyed feeds st belongs to, and whether one of
// them is a public bucket.
func keyedStatusKeys(st *sparrow.Status) (keys []string, public bool) {
	reblog := st.ReblogOfID != 0
	if st.Visibility == sparrow.Public && !reblog {
		for _, t := range st.Tags {
			keys = append(keys, keyedTagKey(t))
		}
		keys, public = append(keys, keyedPublicKey(st.ID.Time())), true
	}
	if st.Object != "" && objectRE.MatchString(st.Object) && (st.Visibility == sparrow.Public || st.Visibility == sparrow.Unlisted) {
		keys = append(keys, keyedObjKey(st.Object))
	}
	return keys, public
}

// KeyedFeeds is the bus consumer that writes the keyed feeds.
type KeyedFeeds struct {
	store sparrow.KeyedFeedStore
}

// NewKeyedFeeds returns the consumer writing to d.KeyedFeeds.
func NewKeyedFeeds(d Deps) *KeyedFeeds { return &KeyedFeeds{store: d.KeyedFeeds} }

// Handle applies status.created (add the status to its tag, object and public
// feeds, and its day to the public directory first, so that a reader never
// misses a bucket) and status.deleted (remove it from the same feeds, computed
// from the payload's status as it was). Other events are ignored; malformed
// payloads are dead letters (sparrow.ErrMalformedEvent). Idempotent: adds and removals are set operations. A
// deletion handled before its creation leaves a row that reads drop, since
// they skip deleted statuses.
func (k *KeyedFeeds) Handle(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvStatusCreated && e.Type != sparrow.EvStatusDeleted {
		return nil
	}
	st, err := e.DecodeStatus()
	if err != nil {
		return err
	}
	keys, public := keyedStatusKeys(st)
	if len(keys) == 0 {
		return nil
	}
	if e.Type == sparrow.EvStatusDeleted {
		return k.store.RemoveFromFeeds(ctx, keys, st.ID)
	}
	if public {
		if err := k.store.AddToFeeds(ctx, []string{keyedDaysKey}, sparrow.FeedItem{ID: keyedDayMarker(st.ID.Time())}); err != nil {
			return err
		}
	}
	return k.store.AddToFeeds(ctx, keys, sparrow.FeedItem{ID: st.ID, Author: st.AccountID, Reblog: st.ReblogOfID})
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

// keyedRead pages a keyed feed for v: each batch of items is filtered by the
// viewer's blocks and mutes (one RelationRows read on the viewer's shard),
// loaded with one multi-get, filtered by visibility and hydrated by the
// statuses service; batches repeat until the page is full (keyedFill).
func (t *Timelines) keyedRead(ctx context.Context, v sparrow.Viewer, p sparrow.Page, fetch func(sparrow.Page) ([]sparrow.FeedItem, error)) ([]*sparrow.StatusView, error) {
	return keyedFill(p.Normalize(sparrow.MaxLimit), func(it sparrow.FeedItem) sparrow.ID { return it.ID }, fetch,
		func(items []sparrow.FeedItem) ([]*sparrow.StatusView, error) { return t.keyedViews(ctx, v, items) })
}

// keyedViews turns feed items into the views v may see, in order: one
// multi-get of the statuses (a partial read leaves out an unavailable
// store's), hydrated in feed mode, which drops what v may not see and what
// is by accounts v blocks, mutes or is blocked by.
func (t *Timelines) keyedViews(ctx context.Context, v sparrow.Viewer, items []sparrow.FeedItem) ([]*sparrow.StatusView, error) {
	if len(items) == 0 {
		return nil, nil
	}
	ids := make([]sparrow.ID, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	got, err := t.d.Statuses.Statuses(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[sparrow.ID]*sparrow.Status, len(got))
	for _, st := range got {
		byID[st.ID] = st
	}
	sts := make([]*sparrow.Status, 0, len(items))
	for _, id := range ids {
		if st := byID[id]; st != nil {
			sts = append(sts, st)
		}
	}
	return t.statuses.hydrate(ctx, t.statuses.policy.access(v), sts, readFeed)
}

// Bounds of keyedFill. A page stops early once it holds something after
// keyedSoftRounds reads, and unconditionally after keyedHardRounds: so a
// page is empty while older visible items exist only behind more than about
// keyedHardRounds × keyedMaxBatch filtered-out items (adversarial data), and
// a request never reads without bound.
const (
	keyedSoftRounds = 8
	keyedHardRounds = 64
	keyedMaxBatch   = 200
)

// keyedFill reads a newest-first list through fetch and filters each batch
// through keep until p.Limit items survive or the list ends, so that
// filtering never makes a page empty or short while older items exist.
// Descending pages move MaxID past each batch; MinID pages (the oldest items
// above MinID, returned newest first) move MinID up and keep the oldest
// p.Limit. keep must preserve order (newest first). Batches grow from
// p.Limit up to keyedMaxBatch. p.Limit must be positive.
func keyedFill[R, O any](p sparrow.Page, idOf func(R) sparrow.ID, fetch func(sparrow.Page) ([]R, error), keep func([]R) ([]O, error)) ([]O, error) {
	want := p.Limit
	var out []O
	for round := 1; ; round++ {
		raw, err := fetch(p)
		if err != nil {
			return nil, err
		}
		kept, err := keep(raw)
		if err != nil {
			return nil, err
		}
		if p.Ascending() {
			out = append(kept, out...) // newer than everything before
			if len(out) > want {
				out = out[len(out)-want:]
			}
		} else {
			out = append(out, kept...)
			if len(out) > want {
				out = out[:want]
			}
		}
		if len(out) >= want || len(raw) < p.Limit || len(raw) == 0 {
			return out, nil
		}
		if round >= keyedHardRounds || round >= keyedSoftRounds && len(out) > 0 {
			return out, nil
		}
		if p.Ascending() {
			p.MinID = idOf(raw[0])
		} else {
			p.MaxID = idOf(raw[len(raw)-1])
		}
		p.Limit = min(2*p.Limit, max(keyedMaxBatch, want))
	}
}
