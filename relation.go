package sparrow

import (
	"context"
	"time"
)

// EdgeKind names a directed relation between two accounts.
type EdgeKind string

// Edge kinds. Follows, follow requests and blocks are stored in both
// directions: the forward table on the source's shard is the source of truth
// (docs/seeds.md#seed-003's Following), the reverse table on the target's shard is its
// asynchronously maintained pseudo-replica (docs/seeds.md#seed-003's Follower). Mutes are
// private and forward only.
const (
	Follow EdgeKind = "follow"
	// FollowRequest is a pending follow of a locked account: forward on the
	// requester's shard (the source of truth of "requested"), reverse on the
	// locked account's shard (its list of follow requests). Its Reblogs and
	// Notify are the options the follow gets when it is authorized.
	FollowRequest EdgeKind = "follow_request"
	Block         EdgeKind = "block"
	Mute          EdgeKind = "mute"
	// Favourite is an edge from an account to a status: forward on the
	// account's shard (its favourites), reverse on the status's shard (who
	// favourited it), with the status's favourites_count kept by deltas.
	Favourite EdgeKind = "favourite"
)

// Edge is one relation row. Rows are never deleted: an unfollow sets State to
// removed (soft delete) and bumps Version, so that a late or replayed event
// never resurrects it (the reverse side applies only newer versions).
type Edge struct {
	Kind    EdgeKind
	From    ID
	To      ID
	Active  bool
	Version int64 // per edge, bumped by every change in the forward transaction
	EdgeID  ID    // time-ordered id of the latest activation: list order and cursor
	Reblogs bool  // follows: show the target's reblogs in home (Mastodon's reblogs)
	Notify  bool  // follows: notify on the target's posts; mutes: hide notifications
	At      time.Time
}

// EdgePayload is the payload of EvEdges events: edges of one source, as
// committed in its forward table.
type EdgePayload struct {
	Edges []Edge `json:"edges"`
}

// Relationship is what one account knows of another (Mastodon's Relationship).
type Relationship struct {
	ID             ID
	Following      bool
	FollowedBy     bool
	Blocking       bool
	BlockedBy      bool
	Muting         bool
	MutingNotifs   bool
	Requested      bool // the viewer asked to follow this locked account
	RequestedBy    bool // this account asks to follow the viewer
	ShowingReblogs bool
	Notifying      bool
}

// FollowOptions are the options of a follow (Mastodon's reblogs and notify).
type FollowOptions struct {
	Reblogs *bool // nil: keep (default true for a new follow)
	Notify  *bool // nil: keep (default false)
}

// RelationStore is the durable store of relations.
type RelationStore interface {
	// SetEdges writes the forward rows of edges that all start at from (one
	// shard), of one or several kinds (each change names its own), bumping
	// each edge's version, applying the counter changes of from's own row
	// (following_count), and appending the events built from the committed
	// edges, all in one transaction: a block that also ends a follow commits
	// both or neither. A change that changes nothing is skipped. It returns
	// the edges whose state or options changed, as committed.
	SetEdges(ctx context.Context, from ID, changes []EdgeChange, now time.Time, events func([]Edge) []Event) ([]Edge, error)
	// ApplyReverse applies forward edges to the reverse table on their targets'
	// shards, keeping only versions newer than the stored ones, and buffers the
	// resulting counter deltas durably (followers_count), in one transaction per
	// physical store. Replays and reordering are harmless.
	ApplyReverse(ctx context.Context, edges []Edge, newID func(shard int) ID) error
	// Edges returns the forward rows from→to for the given targets (active or
	// not); absent rows are absent from the map.
	Edges(ctx context.Context, kind EdgeKind, from ID, to []ID) (map[ID]Edge, error)
	// ReverseEdges returns the reverse rows to←from for the given sources, read
	// on to's shard.
	ReverseEdges(ctx context.Context, kind EdgeKind, to ID, from []ID) (map[ID]Edge, error)
	// ListForward pages the active forward edges of from, newest first, by EdgeID.
	ListForward(ctx context.Context, kind EdgeKind, from ID, p Page) ([]Edge, error)
	// ListReverse pages the active reverse edges of to, newest first, by EdgeID.
	ListReverse(ctx context.Context, kind EdgeKind, to ID, p Page) ([]Edge, error)
	// FollowingIDs returns every account from actively follows, ascending
	// (fills the relation cache).
	FollowingIDs(ctx context.Context, from ID) ([]ID, error)
	// EdgesTo returns, among froms, the active forward edges of kind that
	// point at to, reading each source's shard (batch "who mutes X").
	EdgesTo(ctx context.Context, kind EdgeKind, froms []ID, to ID) (map[ID]Edge, error)
	// RelationRows reads the active rows of the given parts between viewer
	// and ids, in one round trip on viewer's shard (AllParts: what a
	// Relationship needs).
	RelationRows(ctx context.Context, viewer ID, ids []ID, parts RelationPart) (RelationRows, error)
	// IndexAccountTerms records search terms of an account (idempotent).
	IndexAccountTerms(ctx context.Context, id ID, terms []string) error
	// SearchAccountTerms returns ids of accounts with a term starting with
	// prefix; terms may be stale, callers check the accounts.
	SearchAccountTerms(ctx context.Context, prefix string, limit int) ([]ID, error)
}

// RelationRows are the active rows between a viewer and other accounts, keyed
// by the other account: the viewer's follows, follow requests, blocks and
// mutes (forward, on the viewer's shard: sources of truth) and the follows,
// follow requests and blocks pointing at the viewer (reverse tables, also on
// the viewer's shard: eventually consistent copies, good for display but
// never for a decision that grants access).
type RelationRows struct {
	Following, Requested, Blocking, Muting map[ID]Edge // forward: the truth
	FollowedBy, RequestedBy, BlockedBy     map[ID]Edge // reverse: copies
}

// RelationPart names the parts of RelationRows to read, as a set of bits.
type RelationPart uint8

// Relation parts.
const (
	PartFollowing RelationPart = 1 << iota
	PartRequested
	PartBlocking
	PartMuting
	PartFollowedBy
	PartRequestedBy
	PartBlockedBy

	// AllParts is what a Relationship shows.
	AllParts = PartFollowing | PartRequested | PartBlocking | PartMuting | PartFollowedBy | PartRequestedBy | PartBlockedBy
	// PolicyParts are the viewer's own rows that privacy decisions read.
	PolicyParts = PartFollowing | PartBlocking | PartMuting
)

// EdgeChange is a requested change of one forward edge.
type EdgeChange struct {
	Kind    EdgeKind
	To      ID
	Active  bool
	Reblogs *bool // nil: keep (new follows and follow requests: true; other kinds: false)
	Notify  *bool // nil: keep (new edges: false)
	// Expect, if set, is the state the edge must be in when the transaction
	// reads it (locked, where the store locks rows); otherwise SetEdges
	// writes nothing and returns EConflict. An absent edge is inactive.
	Expect *bool
}

// Counter names a counter kept outside COUNT(*), with durable deltas.
type Counter int

// Counters.
const (
	FollowersCount  Counter = 1 // accounts.followers_count
	FollowingCount  Counter = 2 // accounts.following_count
	RepliesCount    Counter = 3 // statuses.replies_count (kept)
	ReblogsCount    Counter = 4 // statuses.reblogs_count (kept: reblogs and quotes)
	FavouritesCount Counter = 5 // statuses.favourites_count
)

// CounterStore buffers counter deltas durably and applies them in batches, so
// that a popular account does not serialise every follow on its row.
type CounterStore interface {
	// FlushCounters applies up to limit buffered deltas of one physical store
	// (index i of its stores) to their rows in one transaction, never going
	// below zero, and refreshes hot flags with hysteresis (hot at ≥ hot,
	// ordinary below cold). It returns how many deltas it applied.
	FlushCounters(ctx context.Context, store int, limit int, hot, cold int64) (int, error)
}

// AccountEdge is an account in a relation list, with the cursor (the edge id)
// that pages the list.
type AccountEdge struct {
	Account *Account
	Cursor  ID
}

// MaxBulk is the most targets one bulk follow or relationships call takes.
const MaxBulk = 1000

// RelationService implements follows, blocks, mutes and account search.
type RelationService interface {
	// Follow makes v follow target (idempotent; options update an existing
	// follow). A follow of a locked account is a follow request instead
	// (Requested), until the account authorizes it. EInvalid for oneself;
	// ENotFound for an unknown account; EForbidden if target blocks v or v
	// blocks target.
	Follow(ctx context.Context, v Viewer, target ID, o FollowOptions) (*Relationship, error)
	// Unfollow removes the follow, or withdraws the follow request (idempotent).
	Unfollow(ctx context.Context, v Viewer, target ID) (*Relationship, error)
	// BulkFollow follows up to MaxBulk targets in one call (docs/seeds.md#seed-000's
	// one-click follow); unknown, blocked and own ids are skipped, locked
	// accounts get follow requests. EInvalid beyond MaxBulk.
	BulkFollow(ctx context.Context, v Viewer, targets []ID) ([]*Relationship, error)
	// FollowRequests pages the accounts asking to follow v, newest first.
	FollowRequests(ctx context.Context, v Viewer, p Page) ([]AccountEdge, error)
	// AuthorizeFollowRequest turns requester's pending request into a
	// follow of v; RejectFollowRequest drops it. ENotFound if requester has
	// no pending request for v. Both return v's relationship with requester.
	AuthorizeFollowRequest(ctx context.Context, v Viewer, requester ID) (*Relationship, error)
	RejectFollowRequest(ctx context.Context, v Viewer, requester ID) (*Relationship, error)
	// Block blocks target and removes follows and follow requests in both
	// directions (v's at once, target's when the event reaches its shard;
	// reads decide from v's block row meanwhile).
	Block(ctx context.Context, v Viewer, target ID) (*Relationship, error)
	Unblock(ctx context.Context, v Viewer, target ID) (*Relationship, error)
	// Mute mutes target; notifications says whether its notifications are hidden too.
	Mute(ctx context.Context, v Viewer, target ID, notifications bool) (*Relationship, error)
	Unmute(ctx context.Context, v Viewer, target ID) (*Relationship, error)
	// Relationships answers for up to MaxBulk ids (unknown ids are skipped).
	Relationships(ctx context.Context, v Viewer, ids []ID) ([]*Relationship, error)
	// Following and Followers page an account's lists, newest first.
	Following(ctx context.Context, v Viewer, account ID, p Page) ([]AccountEdge, error)
	Followers(ctx context.Context, v Viewer, account ID, p Page) ([]AccountEdge, error)
	// Blocks and Mutes page v's own lists, newest first.
	Blocks(ctx context.Context, v Viewer, p Page) ([]AccountEdge, error)
	Mutes(ctx context.Context, v Viewer, p Page) ([]AccountEdge, error)
	// SearchAccounts matches q as a prefix of usernames and display names, and
	// exactly as an acct; following restricts to accounts v follows.
	SearchAccounts(ctx context.Context, v Viewer, q string, limit int, following bool) ([]*Account, error)
}
