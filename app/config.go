package app

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"sparrow"
	"sparrow/sqlite"
)

// Config is everything `sparrow serve` can be told. Every field has a flag
// and a SPARROW_* environment variable (see cmd/sparrow).
type Config struct {
	Addr     string // listen address
	DataDir  string // embedded stores, NATS file store
	Shards   string // RANGE=DSN,… ; "" = four SQLite files under DataDir
	RedisURL string // "" = in-process caches
	// RedisPrefix namespaces every Redis key (default "sparrow:"); instances
	// that share a Redis but not their data need distinct prefixes.
	RedisPrefix string
	NATSURL     string // "" = embedded NATS server
	Stream      string // JetStream stream name (default SPARROW)

	Node       int    // id generator node, unique per process (0-63)
	Domain     string // this server's domain (default: host of Addr)
	BaseURL    string // external URL (default http://Addr)
	Title      string // instance title
	MaxChars   int    // status length limit in code points
	BcryptCost int    // password hashing cost (tests lower it)
	LogLevel   string // debug, info, warn, error

	// HotThreshold is the follower count at which an account turns hot (its
	// posts are pulled at read time, not pushed); it turns ordinary again
	// below 90% of it.
	HotThreshold int

	FeedMode      string        // hybrid (default), push or pull
	InboxCap      int           // items per inbox (default sparrow.DefaultInboxCap)
	RecentCap     int           // items per hot author's recent list (default sparrow.DefaultRecentCap)
	ActiveDays    int           // users seen within this many days get pushes (default sparrow.DefaultActiveDays)
	SweepInterval time.Duration // how often the sweeper runs (default sparrow.DefaultSweepInterval)

	CommentPageSize int // statuses per fixed comment page (default sparrow.DefaultCommentPageSize)

	// SQLiteMemoryMiB is the soft limit on SQLite's memory in the process,
	// for every embedded store together (default sqlite.HeapLimit; see
	// there). Process-wide: the last App opened sets it.
	SQLiteMemoryMiB int
}

// DefaultShards is the embedded shard map: 256 logical shards on four SQLite
// files, so that four writers can commit in parallel.
func DefaultShards(dataDir string) string {
	var parts []string
	for i := 0; i < 4; i++ {
		from, to := i*64, i*64+63
		parts = append(parts, fmt.Sprintf("%d-%d=sqlite:%s", from, to, filepath.Join(dataDir, fmt.Sprintf("shards-%03d-%03d.db", from, to))))
	}
	return strings.Join(parts, ",")
}

func (c Config) withDefaults() (Config, error) {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8080"
	}
	if c.DataDir == "" {
		c.DataDir = "data"
	}
	if c.Shards == "" {
		c.Shards = DefaultShards(c.DataDir)
	}
	if c.RedisPrefix == "" {
		c.RedisPrefix = "sparrow:"
	}
	if c.Stream == "" {
		c.Stream = "SPARROW"
	}
	if c.Node < 0 || c.Node >= sparrow.MaxNodes {
		return c, fmt.Errorf("node must be in 0-%d", sparrow.MaxNodes-1)
	}
	if c.Domain == "" {
		c.Domain = c.Addr
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Addr
	}
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
	if c.Title == "" {
		c.Title = "Sparrow"
	}
	switch c.FeedMode {
	case "":
		c.FeedMode = "hybrid"
	case "hybrid", "push", "pull":
	default:
		return c, fmt.Errorf("feed mode %q: want hybrid, push or pull", c.FeedMode)
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
	if c.SweepInterval <= 0 {
		c.SweepInterval = sparrow.DefaultSweepInterval
	}
	if c.HotThreshold <= 0 {
		c.HotThreshold = sparrow.DefaultHotThreshold
	}
	if c.MaxChars <= 0 {
		c.MaxChars = sparrow.DefaultMaxChars
	}
	if c.SQLiteMemoryMiB <= 0 {
		c.SQLiteMemoryMiB = sqlite.HeapLimit >> 20
	}
	return c, nil
}

// passwordRE matches the password part of "scheme://user:password@".
var passwordRE = regexp.MustCompile(`(//[^:/@,]*):[^@/,]*@`)

// Redact hides the passwords of the DSNs and URLs in s (a shard map, a Redis
// or NATS URL, a command line) before it is logged or written to a report:
// "scheme://user:password@" becomes "scheme://user:***@".
func Redact(s string) string { return passwordRE.ReplaceAllString(s, "$1:***@") }
