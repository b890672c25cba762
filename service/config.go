package service

import (
	"log/slog"
	"time"

	"golang.org/x/crypto/bcrypt"

	"sparrow"
)

// Config holds the tunables of the services.
type Config struct {
	Domain        string        // this server's domain, for acct "user@domain"
	MaxChars      int           // maximum status length in Unicode code points (default sparrow.DefaultMaxChars)
	BcryptCost    int           // password hashing cost (default bcrypt.DefaultCost)
	LoginAttempts int           // failed logins allowed per window for one name from one address (default 5); see Auth.checkPassword
	LoginWindow   time.Duration // the rate-limit window (default 5m)
	TokenCacheTTL time.Duration // how long a resolved token is cached (default 1m)

	FeedMode   string // hybrid (default), push or pull
	InboxCap   int    // items kept per inbox (default sparrow.DefaultInboxCap)
	RecentCap  int    // items kept per hot author's recent list (default sparrow.DefaultRecentCap)
	ActiveDays int    // users seen within this many days get pushes (default sparrow.DefaultActiveDays)

	CommentPageSize int // statuses per fixed comment page (default sparrow.DefaultCommentPageSize)
}

func (c Config) withDefaults() Config {
	if c.MaxChars <= 0 {
		c.MaxChars = sparrow.DefaultMaxChars
	}
	if c.BcryptCost == 0 {
		c.BcryptCost = bcrypt.DefaultCost
	}
	if c.LoginAttempts <= 0 {
		c.LoginAttempts = 5
	}
	if c.LoginWindow <= 0 {
		c.LoginWindow = 5 * time.Minute
	}
	if c.TokenCacheTTL <= 0 {
		c.TokenCacheTTL = time.Minute
	}
	if c.FeedMode == "" {
		c.FeedMode = ModeHybrid
	}
	if c.InboxCap <= 0 {
		c.InboxCap = sparrow.DefaultInboxCap
	}
	if c.RecentCap <= 0 {
		c.RecentCap = sparrow.DefaultRecentCap
	}
	if c.ActiveDays <= 0 {
		c.ActiveDays = sparrow.DefaultActiveDays
	}
	if c.CommentPageSize <= 0 {
		c.CommentPageSize = sparrow.DefaultCommentPageSize
	}
	return c
}

// Deps are what the services are built from.
type Deps struct {
	Accounts   sparrow.AccountStore
	Statuses   sparrow.StatusStore
	Auth       sparrow.AuthStore
	Relations  sparrow.RelationStore
	References sparrow.ReferenceStore
	// Feeds (issue 4).
	Notifications sparrow.NotificationStore
	KeyedFeeds    sparrow.KeyedFeedStore
	Inboxes       sparrow.InboxStore
	Recent        sparrow.RecentLists
	Activity      sparrow.Activity
	Limiter       sparrow.Limiter // failed-login counter
	Cache         sparrow.KV      // token cache (derived data)
	IDs           *sparrow.IDGen
	Clock         sparrow.Clock
	Logger        *slog.Logger // what the services only log (nil: discard)
}

// Services bundles the service implementations.
type Services struct {
	Auth      *Auth
	Accounts  *Accounts
	Statuses  *Statuses
	Relations *Relations
	Following *FollowingCache
	Consumers *Consumers
	Feed      *Feed
	Timelines *Timelines
	// Notifications and the keyed feeds (tag, object, public).
	Notifications *Notifications
	KeyedFeeds    *KeyedFeeds
	Interactions  *Interactions
}

// New builds the services.
func New(d Deps, c Config) *Services {
	c = c.withDefaults()
	if d.Clock == nil {
		d.Clock = sparrow.SystemClock{}
	}
	auth := &Auth{d: d, c: c}
	accounts := &Accounts{d: d, c: c, auth: auth}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	cache := NewFollowingCache(d.Cache, d.Relations, 0, d.Logger)
	statuses := &Statuses{d: d, c: c, policy: policy{rel: d.Relations}}
	feed := &Feed{d: d, c: c, statuses: statuses, cache: cache, Observer: noObserver{}, rebuilds: newRebuilds()}
	return &Services{
		Auth:          auth,
		Accounts:      accounts,
		Statuses:      statuses,
		Feed:          feed,
		Timelines:     &Timelines{d: d, c: c, statuses: statuses, cache: cache, feed: feed},
		Notifications: NewNotifications(d, statuses),
		KeyedFeeds:    NewKeyedFeeds(d),
		Interactions:  &Interactions{d: d, c: c, statuses: statuses},
		Relations:     &Relations{d: d, c: c, cache: cache, store: d.Relations, accs: accounts},
		Following:     cache,
		Consumers:     &Consumers{d: d, cache: cache, afterFollow: feed.MergeFollowee},
	}
}
