package nats

import (
	"log/slog"
	"strings"
	"time"

	"sparrow"
)

// Defaults of Config.
const (
	DefaultStream         = "SPARROW"
	DefaultSubjectPrefix  = "sparrow.ev"
	DefaultDupWindow      = 10 * time.Minute
	DefaultMaxAge         = 72 * time.Hour
	DefaultPublishTimeout = 10 * time.Second
)

// Config configures a Bus. The zero value of every field but DataDir (needed by
// the embedded server) selects a default.
type Config struct {
	// URL of the NATS server, e.g. "nats://127.0.0.1:4222". Empty runs an
	// embedded server inside the process instead.
	URL string
	// DataDir is the embedded server's JetStream store directory (e.g.
	// DATA/nats). Required when URL is empty, ignored otherwise.
	DataDir string
	// Stream is the JetStream stream name, DefaultStream if empty. Its subjects
	// are "sparrow.ev.>" for the default stream and "<lowercased name>.ev.>"
	// for any other, so that streams with different names never overlap (tests
	// use throwaway streams on a shared server).
	Stream string
	// Logger receives connection and consumer events; slog.Default() if nil.
	Logger *slog.Logger
	// DupWindow is how long the stream remembers event ids to drop
	// republished events (DefaultDupWindow if zero). It must not exceed MaxAge.
	DupWindow time.Duration
	// MaxAge is how long the stream keeps events (DefaultMaxAge if zero).
	MaxAge time.Duration
	// PublishTimeout bounds a Publish whose context has no deadline
	// (DefaultPublishTimeout if zero).
	PublishTimeout time.Duration
	// Workers is the default number of events a Subscribe handles
	// concurrently (1 if zero). See SubOptions.Workers.
	Workers int
}

// withDefaults returns c with its defaults filled in, or an EInvalid error.
func (c Config) withDefaults() (Config, error) {
	if c.Stream == "" {
		c.Stream = DefaultStream
	}
	if !validName(c.Stream) {
		return c, sparrow.Errorf(sparrow.EInvalid, "nats: invalid stream name %q", c.Stream)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.DupWindow <= 0 {
		c.DupWindow = DefaultDupWindow
	}
	if c.MaxAge <= 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.DupWindow > c.MaxAge {
		return c, sparrow.Errorf(sparrow.EInvalid, "nats: DupWindow %v exceeds MaxAge %v", c.DupWindow, c.MaxAge)
	}
	if c.PublishTimeout <= 0 {
		c.PublishTimeout = DefaultPublishTimeout
	}
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.URL == "" && c.DataDir == "" {
		return c, sparrow.Errorf(sparrow.EInvalid, "nats: the embedded server needs Config.DataDir")
	}
	return c, nil
}

// subjectPrefix is the prefix of the subjects of stream's events.
func subjectPrefix(stream string) string {
	if stream == DefaultStream {
		return DefaultSubjectPrefix
	}
	return strings.ToLower(stream) + ".ev"
}

// validName reports whether s can name a stream or a consumer, and be a
// subject token: printable, without '.', wildcards, path separators or spaces.
func validName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(".*>/\\", r) {
			return false
		}
	}
	return true
}

// validType reports whether t makes a valid literal subject suffix: non-empty
// dot-separated tokens without wildcards or spaces.
func validType(t sparrow.EventType) bool {
	if t == "" {
		return false
	}
	for tok := range strings.SplitSeq(string(t), ".") {
		if tok == "" || tok == "*" || tok == ">" {
			return false
		}
		for _, r := range tok {
			if r <= ' ' || r == 0x7f {
				return false
			}
		}
	}
	return true
}
