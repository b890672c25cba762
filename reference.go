package sparrow

import (
	"context"
	"time"
)

// RefKind is docs/seeds.md#seed-001's message-to-message relation type.
type RefKind int

// Reference kinds (t_msg_msg_relation.Type).
const (
	RefComment RefKind = 1 // a reply
	RefRepost  RefKind = 2 // a plain reblog or a quote
)

// Reference is a row of docs/seeds.md#seed-001's t_msg_msg_relation, stored on the shard of
// the referenced status (the seed's own correction): status Status (by
// Author) comments on or reposts Ref. Page is its fixed page, assigned once
// from the referenced status's ever count: (ever − 1) div page size.
type Reference struct {
	Ref       ID
	Kind      RefKind
	Page      int
	Status    ID
	Author    ID
	CreatedAt time.Time
}

// ReferenceStore keeps comment and repost relations with fixed pages.
type ReferenceStore interface {
	// AddReference records that s references ref (idempotent: a reference
	// already recorded changes nothing). In one transaction on ref's shard it
	// bumps ref's ever count (replies_ever or reblogs_ever), assigns the fixed
	// page (ever − 1) div pageSize, inserts the row and buffers a +1 delta of
	// the kept count. It returns the reference as stored; ENotFound if ref
	// does not exist.
	AddReference(ctx context.Context, r Reference, pageSize int, newID func(shard int) ID) (*Reference, error)
	// RemoveReference deletes the row of s referencing ref and buffers a −1
	// delta of the kept count; the ever count is untouched. Removing an
	// absent row is not an error and changes nothing.
	RemoveReference(ctx context.Context, ref ID, kind RefKind, status ID, newID func(shard int) ID) error
	// ReferencePage returns the rows of one fixed page, oldest first. A page
	// may be short after deletions, as docs/seeds.md#seed-001 describes.
	ReferencePage(ctx context.Context, ref ID, kind RefKind, page int) ([]Reference, error)
	// References pages the rows of ref of a kind by status id, newest first.
	References(ctx context.Context, ref ID, kind RefKind, p Page) ([]Reference, error)
	// ReblogsOf returns account's live reblog of each original among ids
	// (original → reblog), in one read on account's shard.
	ReblogsOf(ctx context.Context, account ID, originals []ID) (map[ID]ID, error)
}

// CommentPage is one fixed page of comments (extension endpoint).
type CommentPage struct {
	Page     int
	PageSize int
	Pages    int // pages assigned so far: ceil(replies_ever / page size)
	Statuses []*StatusView
}

// ContextView is a status's thread: ancestors oldest first, descendants in
// thread order.
type ContextView struct {
	Ancestors   []*StatusView
	Descendants []*StatusView
}

// InteractionService implements comments pages, threads, reblogs and favourites.
type InteractionService interface {
	// Context returns the thread of a status v can see.
	Context(ctx context.Context, v Viewer, id ID) (*ContextView, error)
	// Comments returns fixed comment page n (0-based) of a status.
	Comments(ctx context.Context, v Viewer, id ID, page int) (*CommentPage, error)
	// Reblog reblogs a status (idempotent: the existing reblog is returned).
	// EForbidden for private and direct statuses; ENotFound if v cannot see it.
	Reblog(ctx context.Context, v Viewer, id ID, visibility Visibility) (*StatusView, error)
	// Unreblog removes v's reblog of a status (idempotent) and returns the original.
	Unreblog(ctx context.Context, v Viewer, id ID) (*StatusView, error)
	// RebloggedBy pages the accounts that reblogged a status, newest first.
	RebloggedBy(ctx context.Context, v Viewer, id ID, p Page) ([]AccountEdge, error)
	// Favourite and Unfavourite are idempotent and return the status.
	Favourite(ctx context.Context, v Viewer, id ID) (*StatusView, error)
	Unfavourite(ctx context.Context, v Viewer, id ID) (*StatusView, error)
	// FavouritedBy pages the accounts that favourited a status, newest first.
	FavouritedBy(ctx context.Context, v Viewer, id ID, p Page) ([]AccountEdge, error)
	// Favourites pages v's own favourites, newest first (cursor: the edge id).
	Favourites(ctx context.Context, v Viewer, p Page) ([]StatusEdge, error)
}

// StatusEdge is a status in a list paged by another cursor (favourites).
type StatusEdge struct {
	Status *StatusView
	Cursor ID
}
