package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"sparrow"
)

// Opener opens a physical store from a DSN of its scheme ("sqlite:…",
// "mysql://…") and applies its migrations.
type Opener func(ctx context.Context, dsn string) (*DB, error)

// Range is a span of logical shards mapped onto one DSN.
type Range struct {
	From, To int // inclusive
	DSN      string
}

// ParseSpec parses a shard map "0-127=DSN,128-255=DSN". Single shards ("7=DSN")
// are allowed. Every logical shard must be covered exactly once.
func ParseSpec(spec string) ([]Range, error) {
	var out []Range
	var covered [sparrow.NumShards]bool
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		rng, dsn, ok := strings.Cut(part, "=")
		if !ok || dsn == "" {
			return nil, fmt.Errorf("shard map %q: want RANGE=DSN", part)
		}
		lo, hi, isRange := strings.Cut(rng, "-")
		if !isRange {
			hi = lo
		}
		from, err1 := strconv.Atoi(strings.TrimSpace(lo))
		to, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil || from < 0 || to >= sparrow.NumShards || from > to {
			return nil, fmt.Errorf("shard map %q: bad range (0-%d)", part, sparrow.NumShards-1)
		}
		for s := from; s <= to; s++ {
			if covered[s] {
				return nil, fmt.Errorf("shard map: shard %d mapped twice", s)
			}
			covered[s] = true
		}
		out = append(out, Range{From: from, To: to, DSN: strings.TrimSpace(dsn)})
	}
	for s, ok := range covered {
		if !ok {
			return nil, fmt.Errorf("shard map: shard %d is not mapped", s)
		}
	}
	return out, nil
}

// Shards routes logical shards to physical stores.
type Shards struct {
	byShard [sparrow.NumShards]*DB
	dbs     []*DB
}

// OpenShards opens every distinct DSN of the spec once with the opener of its
// scheme (the text before the first ':') and maps the ranges onto them.
func OpenShards(ctx context.Context, spec string, openers map[string]Opener) (*Shards, error) {
	ranges, err := ParseSpec(spec)
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EInvalid, err, "%v", err)
	}
	s := &Shards{}
	byDSN := map[string]*DB{}
	for _, r := range ranges {
		db := byDSN[r.DSN]
		if db == nil {
			scheme, _, _ := strings.Cut(r.DSN, ":")
			open := openers[scheme]
			if open == nil {
				s.Close()
				return nil, sparrow.Errorf(sparrow.EInvalid, "shard map: unknown store scheme %q", scheme)
			}
			if db, err = open(ctx, r.DSN); err != nil {
				s.Close()
				return nil, err
			}
			byDSN[r.DSN] = db
			s.dbs = append(s.dbs, db)
		}
		for i := r.From; i <= r.To; i++ {
			s.byShard[i] = db
		}
	}
	return s, nil
}

// NewShards maps every logical shard onto the single store db (for tests).
func NewShards(db *DB) *Shards {
	s := &Shards{dbs: []*DB{db}}
	for i := range s.byShard {
		s.byShard[i] = db
	}
	return s
}

// For returns the physical store of a logical shard.
func (s *Shards) For(shard int) *DB { return s.byShard[shard&(sparrow.NumShards-1)] }

// ForID returns the physical store that owns id (by its gene).
func (s *Shards) ForID(id sparrow.ID) *DB { return s.For(id.Shard()) }

// ForKey returns the physical store that owns a hashed key.
func (s *Shards) ForKey(key string) *DB { return s.For(sparrow.KeyShard(key)) }

// DBs returns the distinct physical stores.
func (s *Shards) DBs() []*DB { return s.dbs }

// SetOnCommit sets the post-commit hook (the relay's Poke) on every store.
func (s *Shards) SetOnCommit(f func()) {
	for _, db := range s.dbs {
		db.OnCommit = f
	}
}

// Close closes every physical store.
func (s *Shards) Close() error {
	var err error
	for _, db := range s.dbs {
		err = errors.Join(err, db.Close())
	}
	return err
}

// GroupByDB groups ids by the physical store that owns them (by gene),
// keeping their order within each group.
func (s *Shards) GroupByDB(ids []sparrow.ID) map[*DB][]sparrow.ID {
	out := map[*DB][]sparrow.ID{}
	for _, id := range ids {
		db := s.ForID(id)
		out[db] = append(out[db], id)
	}
	return out
}
