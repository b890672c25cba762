package service

import (
	"context"
	"slices"
	"strings"

	"sparrow"
)

// Keyed feeds (docs/seeds.md#seed-002): per-purpose feeds keyed by something
// other than a user (a hashtag, an object, the day of the public timeline),
// written by the KeyedFeeds consumer and read by Timelines.Keyed. Each kind of
// keyed feed is one registration (registerKeyedFeed, from an init function in
// the kind's own file: keyed_tag.go, keyed_object.go, keyed_public.go); the
// consumer, the reader, the extension route GET /api/v1/x/feeds/{feed} and
// the authorization matrix then serve it with no other change
// (docs/architecture.md, "Adding a new feed type").

// keyedFeed is one registered kind of keyed feed.
type keyedFeed struct {
	// name is the feed's public name, as in GET /api/v1/x/feeds/{name}.
	name string
	// keys is the routing rule: the reader keys of this feed that a status,
	// as posted (or, for a deletion, as it was), belongs to; none if it
	// belongs to none. It decides alone which statuses a feed may list, so
	// it must admit only what every viewer of the key may be shown
	// (visibility is still checked again at read).
	keys func(st *sparrow.Status) []string
	// normalize maps a key a reader asked for to the canonical reader key,
	// and reports false for a key that cannot exist (the read is then
	// ENotFound).
	normalize func(key string) (string, bool)
	// storageKey is the KeyedFeedStore key holding st under reader key key.
	storageKey func(key string, st *sparrow.Status) string
	// beforeAdd, if set, runs before st is added under its keys: for
	// bookkeeping a reader relies on finding first (the public feed's
	// directory of days).
	beforeAdd func(ctx context.Context, store sparrow.KeyedFeedStore, st *sparrow.Status) error
	// read pages the feed of a canonical reader key, newest first.
	read func(ctx context.Context, t *Timelines, key string, p sparrow.Page) ([]sparrow.FeedItem, error)
}

// keyedFeeds holds the registered kinds by name; keyedFeedOrder the same,
// sorted by name (the consumer's fixed order).
var (
	keyedFeeds     = map[string]*keyedFeed{}
	keyedFeedOrder []*keyedFeed
)

// registerKeyedFeed adds a kind of keyed feed; it is called from init
// functions and panics on a duplicate or incomplete registration.
func registerKeyedFeed(f keyedFeed) {
	if f.name == "" || f.keys == nil || f.normalize == nil || f.storageKey == nil || f.read == nil {
		panic("service: incomplete keyed feed registration " + f.name)
	}
	if keyedFeeds[f.name] != nil {
		panic("service: keyed feed " + f.name + " registered twice")
	}
	keyedFeeds[f.name] = &f
	keyedFeedOrder = append(keyedFeedOrder, &f)
	slices.SortFunc(keyedFeedOrder, func(a, b *keyedFeed) int { return strings.Compare(a.name, b.name) })
}

// readStored is the read of a feed whose reader key maps to one stored list.
func readStored(ctx context.Context, t *Timelines, storageKey string, p sparrow.Page) ([]sparrow.FeedItem, error) {
	return t.d.KeyedFeeds.ReadFeed(ctx, storageKey, p)
}

// KeyedFeedNames returns the names of the registered keyed feeds, sorted.
func KeyedFeedNames() []string {
	names := make([]string, len(keyedFeedOrder))
	for i, f := range keyedFeedOrder {
		names[i] = f.name
	}
	return names
}

// KeyedFeedKeys returns, by feed name, the reader keys under which st, as
// given, is listed in the keyed feeds (the routing rules of every registered
// feed). Tests use it to read every feed a status reached.
func KeyedFeedKeys(st *sparrow.Status) map[string][]string {
	out := map[string][]string{}
	for name, f := range keyedFeeds {
		if ks := f.keys(st); len(ks) > 0 {
			out[name] = ks
		}
	}
	return out
}

// KeyedFeeds is the bus consumer that writes the keyed feeds.
type KeyedFeeds struct {
	store sparrow.KeyedFeedStore
}

// NewKeyedFeeds returns the consumer writing to d.KeyedFeeds.
func NewKeyedFeeds(d Deps) *KeyedFeeds { return &KeyedFeeds{store: d.KeyedFeeds} }

// Handle applies status.created (add the status to the keyed feeds its
// routing rules name, after each feed's beforeAdd) and status.deleted
// (remove it from the same feeds, computed from the payload's status as it
// was). Other events are ignored; malformed payloads are dead letters
// (sparrow.ErrMalformedEvent). Idempotent: adds and removals are set
// operations. A deletion handled before its creation leaves a row that reads
// drop, since they skip deleted statuses.
func (k *KeyedFeeds) Handle(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvStatusCreated && e.Type != sparrow.EvStatusDeleted {
		return nil
	}
	st, err := e.DecodeStatus()
	if err != nil {
		return err
	}
	var keys []string
	for _, f := range keyedFeedOrder { // a fixed order, so that retries repeat the same writes
		ks := f.keys(st)
		if len(ks) == 0 {
			continue
		}
		if e.Type == sparrow.EvStatusCreated && f.beforeAdd != nil {
			if err := f.beforeAdd(ctx, k.store, st); err != nil {
				return err
			}
		}
		for _, key := range ks {
			keys = append(keys, f.storageKey(key, st))
		}
	}
	if len(keys) == 0 {
		return nil
	}
	if e.Type == sparrow.EvStatusDeleted {
		return k.store.RemoveFromFeeds(ctx, keys, st.ID)
	}
	return k.store.AddToFeeds(ctx, keys, sparrow.FeedItem{ID: st.ID, Author: st.AccountID, Reblog: st.ReblogOfID})
}

// Keyed returns a page of the keyed feed named feed under key, newest first,
// filtered for v as every timeline is (keyedRead). An unknown feed or a key
// the feed cannot have is ENotFound.
func (t *Timelines) Keyed(ctx context.Context, v sparrow.Viewer, feed, key string, p sparrow.Page) ([]*sparrow.StatusView, error) {
	f := keyedFeeds[feed]
	if f == nil {
		return nil, notFound
	}
	key, ok := f.normalize(key)
	if !ok {
		return nil, notFound
	}
	return t.keyedRead(ctx, v, p, func(p sparrow.Page) ([]sparrow.FeedItem, error) {
		return f.read(ctx, t, key, p)
	})
}
