package sparrow

import (
	"context"
	"time"
)

// Visibility is who may see a status (Mastodon's four levels).
type Visibility string

// Visibility levels.
const (
	Public   Visibility = "public"   // everyone, and the public timeline
	Unlisted Visibility = "unlisted" // everyone, but not the public timeline
	Private  Visibility = "private"  // followers only
	Direct   Visibility = "direct"   // mentioned accounts only
)

// Valid reports whether v is one of the four levels.
func (v Visibility) Valid() bool {
	switch v {
	case Public, Unlisted, Private, Direct:
		return true
	}
	return false
}

// StatusType is docs/seeds.md#seed-001's message type.
type StatusType int

// Status types (docs/seeds.md#seed-001 t_msg_info.Type).
const (
	Original StatusType = 0
	Comment  StatusType = 1 // a reply
	Repost   StatusType = 2 // a reblog or a quote
)

// Status is a post (docs/seeds.md#seed-001's t_msg_info, docs/seeds.md#seed-004's t_tiezi). Its id carries
// its author's gene, so it lives on its author's shard.
type Status struct {
	ID                 ID
	AccountID          ID
	Type               StatusType
	Text               string
	SpoilerText        string
	Sensitive          bool
	Language           string
	Visibility         Visibility
	InReplyToID        ID // 0 if none
	InReplyToAccountID ID
	ReblogOfID         ID       // plain reblog; 0 if none
	QuoteID            ID       // repost with text; 0 if none
	Mentions           []ID     // mentioned accounts, resolved at post time
	Tags               []string // hashtags, lower-cased, without '#'
	Object             string   // object feed key "type:key", or ""
	AppID              ID       // the app that posted it, or 0
	CreatedAt          time.Time
	EditedAt           time.Time // zero if never edited
	DeletedAt          time.Time // zero unless deleted (deleted statuses are tombstones)
	Version            int64     // bumped on every edit; last-writer-wins for consumers

	// Kept counters (docs/seeds.md#seed-001 Comment_count/Transfer_count) and the
	// favourite count. Exact after convergence, never negative.
	RepliesCount    int64
	ReblogsCount    int64
	FavouritesCount int64
	// Ever counters (docs/seeds.md#seed-001 Commented_count/Transferred_count): only grow,
	// and number the fixed comment/repost pages.
	RepliesEver int64
	ReblogsEver int64
}

// Deleted reports whether s is a tombstone.
func (s *Status) Deleted() bool { return !s.DeletedAt.IsZero() }

// EventFunc builds the events of a write from the row as the transaction sees
// it, so that event payloads match what was committed.
type EventFunc func(s *Status) []Event

// StatusEdit is one revision of a status, for GET /api/v1/statuses/:id/history.
type StatusEdit struct {
	StatusID    ID
	Version     int64
	Text        string
	SpoilerText string
	Sensitive   bool
	CreatedAt   time.Time
}

// NewStatus is what CreateStatus stores.
type NewStatus struct {
	Status         *Status
	IdempotencyKey string // "" for none; unique per author for a day
}

// StatusFilter narrows a profile feed (GET /api/v1/accounts/:id/statuses).
type StatusFilter struct {
	ExcludeReplies bool
	ExcludeReblogs bool
	OnlyMedia      bool
	Pinned         bool
	// MinVisibility excludes statuses less visible than these: the set the
	// viewer may see (decided by the service).
	Visibilities []Visibility
}

// StatusStore is the durable store of statuses, sharded by author (gene).
type StatusStore interface {
	// CreateStatus inserts the status, bumps its author's statuses_count and
	// last_status_at, records the idempotency key, and appends events, all in one
	// transaction on the author's shard. If the key was already used by the
	// author, it stores nothing and returns the earlier status with created=false.
	CreateStatus(ctx context.Context, n NewStatus, events ...Event) (s *Status, created bool, err error)
	// EditStatus replaces text, spoiler text and sensitivity, bumps the version,
	// keeps the previous revision in the history, and appends events, in one
	// transaction; events receives the edited status. It returns ENotFound for
	// an absent or deleted status.
	EditStatus(ctx context.Context, id ID, e StatusEdit, events EventFunc) (*Status, error)
	// DeleteStatus tombstones the status, decrements its author's
	// statuses_count and appends events, in one transaction; events receives
	// the status as it was. It returns the status as it was, or ENotFound if
	// absent or already deleted.
	DeleteStatus(ctx context.Context, id ID, now time.Time, events EventFunc) (*Status, error)
	// Status returns one status, tombstones included, or ENotFound.
	Status(ctx context.Context, id ID) (*Status, error)
	// Statuses returns the statuses that exist among ids (tombstones included),
	// in no set order, grouping the reads by physical store.
	Statuses(ctx context.Context, ids []ID) ([]*Status, error)
	// AccountStatuses returns the author's live statuses in page, newest first,
	// filtered by f (the profile feed).
	AccountStatuses(ctx context.Context, accountID ID, f StatusFilter, p Page) ([]*Status, error)
	// AuthorsFeed returns the newest live items by any of authors inside p,
	// newest first, at most p.Limit (the pull path: per-author LIMIT pushdown,
	// parallel per physical store).
	AuthorsFeed(ctx context.Context, authors []ID, p Page) ([]FeedItem, error)
	// StatusHistory returns the revisions of a status, oldest first, the current
	// one last, or ENotFound.
	StatusHistory(ctx context.Context, id ID) ([]StatusEdit, error)
}
