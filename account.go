package sparrow

import (
	"context"
	"time"
)

// Account is a user (docs/seeds.md#seed-001's t_user_info): identity plus its counters. The
// account lives on the logical shard of its id's gene, and so do its statuses.
type Account struct {
	ID           ID
	Username     string // unique, case-insensitively
	Email        string // private; unique, case-insensitively
	PasswordHash string // argon2id or bcrypt; never leaves the service layer
	DisplayName  string
	Note         string
	Locked       bool
	Bot          bool
	CreatedAt    time.Time
	UpdatedAt    time.Time

	// Counters (docs/seeds.md#seed-001: Msg_count, Fans_count, Follow_count). They live in the
	// account row and are never computed with COUNT(*).
	StatusesCount  int64
	FollowersCount int64
	FollowingCount int64
	LastStatusAt   time.Time // zero if none
	// Hot is set when FollowersCount reaches the hot threshold and cleared
	// only below 90% of it (hysteresis); hot accounts are pulled, not pushed.
	Hot bool
}

// AccountUpdate names the profile fields to change; nil means unchanged.
type AccountUpdate struct {
	DisplayName *string
	Note        *string
	Locked      *bool
	Bot         *bool
}

// AccountStore is the durable store of accounts, sharded by account id.
type AccountStore interface {
	// CreateAccount inserts a and appends events to its shard's outbox in the
	// same transaction. Username and email are claimed first, each on the shard
	// of its hash; it returns EConflict if either is taken.
	CreateAccount(ctx context.Context, a *Account, events ...Event) error
	// UpdateAccount applies u to the account and appends events, in one
	// transaction; it returns the updated account, or ENotFound.
	UpdateAccount(ctx context.Context, id ID, u AccountUpdate, now time.Time, events ...Event) (*Account, error)
	// Account returns one account, or ENotFound.
	Account(ctx context.Context, id ID) (*Account, error)
	// Accounts returns the accounts that exist among ids, in no set order,
	// grouping the reads by physical store. In a context that allows
	// partial reads (WithGaps), an unavailable store's accounts are left out.
	Accounts(ctx context.Context, ids []ID) ([]*Account, error)
	// AccountsSeenBy returns the accounts that exist among ids, as Accounts
	// does, and the set of those whose own block row points at viewer, read
	// in the same query on each account's store (the source of truth of "A
	// blocks viewer"): what a read needs to render authors and decide
	// access, in one round trip per store. viewer 0 blocks nobody. In a
	// context that allows partial reads (WithGaps), an unavailable store's
	// accounts are left out, and so are their block rows.
	AccountsSeenBy(ctx context.Context, viewer ID, ids []ID) (accounts []*Account, blockers map[ID]bool, err error)
	// AccountsExist reports which of ids are accounts (primary-key reads only).
	AccountsExist(ctx context.Context, ids []ID) (map[ID]bool, error)
	// AccountByUsername resolves a username case-insensitively, or ENotFound.
	AccountByUsername(ctx context.Context, username string) (*Account, error)
	// AccountByEmail resolves an email case-insensitively, or ENotFound.
	AccountByEmail(ctx context.Context, email string) (*Account, error)
}
