package sqlstore

import (
	"context"
	"database/sql"
	"sort"
	"strings"
	"time"

	"sparrow"
)

var _ sparrow.RelationStore = (*Store)(nil)

// edgeTables names the forward and reverse tables of an edge kind ("" for none).
func edgeTables(k sparrow.EdgeKind) (fwd, rev string, err error) {
	switch k {
	case sparrow.Follow:
		return "following", "followers", nil
	case sparrow.FollowRequest:
		return "follow_requests", "follow_requested_by", nil
	case sparrow.Block:
		return "blocks", "blocked_by", nil
	case sparrow.Mute:
		return "mutes", "", nil
	case sparrow.Favourite:
		return "favourites", "favourited_by", nil
	}
	return "", "", sparrow.Errorf(sparrow.EInternal, "unknown edge kind %q", k)
}

// reverseCounters are the counters of an edge's target that the reverse side
// keeps, by edge kind.
var reverseCounters = map[sparrow.EdgeKind]sparrow.Counter{
	sparrow.Follow:    sparrow.FollowersCount,
	sparrow.Favourite: sparrow.FavouritesCount,
}

// EdgeColumns are the columns of every edge table (following, followers,
// favourites, …), in the order the store scans them and EdgeArgs writes
// them. A reverse table (followers, favourited_by, …) has the same columns,
// keyed (to_id, from_id).
const EdgeColumns = "from_id, to_id, state, version, edge_id, reblogs, notify, updated_at"

var edgeCols = strings.Split(EdgeColumns, ", ")

func scanEdge(kind sparrow.EdgeKind, r scanner) (sparrow.Edge, error) {
	e := sparrow.Edge{Kind: kind}
	var state, reblogs, notify int
	var at int64
	err := r.Scan(&e.From, &e.To, &state, &e.Version, &e.EdgeID, &reblogs, &notify, &at)
	e.Active, e.Reblogs, e.Notify, e.At = state == 1, reblogs != 0, notify != 0, time.UnixMilli(at).UTC()
	return e, err
}

// EdgeArgs returns the values of e's row in EdgeColumns order: state,
// reblogs and notify as 0 or 1, updated_at in Unix milliseconds.
func EdgeArgs(e sparrow.Edge) []any {
	return []any{int64(e.From), int64(e.To), boolInt(e.Active), e.Version, int64(e.EdgeID), boolInt(e.Reblogs), boolInt(e.Notify), e.At.UnixMilli()}
}

// stmtQuerier runs queries through db's prepared-statement cache.
type stmtQuerier struct{ db *DB }

func (q stmtQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.db.queryR(ctx, query, args...)
}

func queryEdges(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, kind sparrow.EdgeKind, query string, args ...any) ([]sparrow.Edge, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sparrow.Edge
	for rows.Next() {
		e, err := scanEdge(kind, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// SetEdges writes forward edge changes of one source, of any kinds, in one
// transaction on the source's shard.
func (s *Store) SetEdges(ctx context.Context, from sparrow.ID, changes []sparrow.EdgeChange, now time.Time, events func([]sparrow.Edge) []sparrow.Event) ([]sparrow.Edge, error) {
	byKind := map[sparrow.EdgeKind][]sparrow.EdgeChange{}
	var kinds []sparrow.EdgeKind // in order of first appearance
	for _, c := range changes {
		if _, _, err := edgeTables(c.Kind); err != nil {
			return nil, err
		}
		if byKind[c.Kind] == nil {
			kinds = append(kinds, c.Kind)
		}
		byKind[c.Kind] = append(byKind[c.Kind], c)
	}
	if len(kinds) == 0 {
		return nil, nil
	}
	db := s.shards.ForID(from)
	var changed []sparrow.Edge
	err := db.txEvents(ctx, func(t *sql.Tx) ([]sparrow.Event, error) {
		changed = nil // a retried run starts over
		for _, kind := range kinds {
			got, err := s.setEdgesOf(ctx, db, t, kind, from, byKind[kind], now)
			if err != nil {
				return nil, err
			}
			changed = append(changed, got...)
		}
		if len(changed) == 0 {
			return nil, nil
		}
		return events(changed), nil
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// setEdgesOf applies the changes of one kind inside t and returns the edges
// that changed.
func (s *Store) setEdgesOf(ctx context.Context, db *DB, t *sql.Tx, kind sparrow.EdgeKind, from sparrow.ID, changes []sparrow.EdgeChange, now time.Time) ([]sparrow.Edge, error) {
	fwd, _, _ := edgeTables(kind)
	targets := make([]sparrow.ID, len(changes))
	for i, c := range changes {
		targets[i] = c.To
	}
	existing, err := queryEdges(ctx, t, kind, "SELECT "+EdgeColumns+" FROM "+fwd+" WHERE from_id = ? AND to_id IN ("+
		Placeholders(len(targets))+")"+forUpdate(db.Dialect), append([]any{int64(from)}, IDArgs(targets)...)...)
	if err != nil {
		return nil, err
	}
	old := make(map[sparrow.ID]sparrow.Edge, len(existing))
	for _, e := range existing {
		old[e.To] = e
	}
	var changed []sparrow.Edge
	delta := 0
	seen := map[sparrow.ID]bool{}
	for _, c := range changes {
		if seen[c.To] {
			continue
		}
		seen[c.To] = true
		prev, had := old[c.To]
		if c.Expect != nil && *c.Expect != (had && prev.Active) {
			return nil, sparrow.Errorf(sparrow.EConflict, "The %s is not in the expected state", kind)
		}
		next := sparrow.Edge{Kind: kind, From: from, To: c.To, Active: c.Active, At: now,
			Reblogs: kind == sparrow.Follow || kind == sparrow.FollowRequest, Notify: false}
		if had {
			next.Version, next.EdgeID, next.Reblogs, next.Notify = prev.Version, prev.EdgeID, prev.Reblogs, prev.Notify
		}
		if c.Reblogs != nil {
			next.Reblogs = *c.Reblogs
		}
		if c.Notify != nil {
			next.Notify = *c.Notify
		}
		if had && prev.Active == next.Active && prev.Reblogs == next.Reblogs && prev.Notify == next.Notify {
			continue // nothing changes: idempotent
		}
		if !had && !next.Active {
			continue // removing what never was
		}
		next.Version++
		if next.Active && (!had || !prev.Active) {
			next.EdgeID = s.ids.Next(from.Shard())
			delta++
		} else if !next.Active && had && prev.Active {
			delta--
		}
		changed = append(changed, next)
	}
	if len(changed) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(changed)*len(edgeCols))
	for _, e := range changed {
		args = append(args, EdgeArgs(e)...)
	}
	if _, err := t.ExecContext(ctx, upsertSQL(db.Dialect, fwd, edgeCols, []string{"from_id", "to_id"},
		[]string{"state", "version", "edge_id", "reblogs", "notify", "updated_at"}, len(changed)), args...); err != nil {
		return nil, err
	}
	if kind == sparrow.Follow && delta != 0 {
		if _, err := t.ExecContext(ctx, "UPDATE accounts SET following_count = CASE WHEN following_count + ? < 0 THEN 0 ELSE following_count + ? END WHERE id = ?",
			delta, delta, int64(from)); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// ApplyReverse applies forward edges to the reverse tables, version-guarded,
// and buffers followers_count deltas, one transaction per physical store.
func (s *Store) ApplyReverse(ctx context.Context, edges []sparrow.Edge, newID func(shard int) sparrow.ID) error {
	byDB := map[*DB][]sparrow.Edge{}
	for _, e := range edges {
		if _, rev, err := edgeTables(e.Kind); err != nil {
			return err
		} else if rev == "" {
			continue
		}
		db := s.shards.ForID(e.To)
		byDB[db] = append(byDB[db], e)
	}
	for db, group := range byDB {
		if err := s.applyReverseOn(ctx, db, group, newID); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) applyReverseOn(ctx context.Context, db *DB, edges []sparrow.Edge, newID func(shard int) sparrow.ID) error {
	byKind := map[sparrow.EdgeKind][]sparrow.Edge{}
	for _, e := range edges {
		byKind[e.Kind] = append(byKind[e.Kind], e)
	}
	return db.Tx(ctx, nil, func(t *sql.Tx) error {
		for kind, group := range byKind {
			_, rev, _ := edgeTables(kind)
			pairs := make([]any, 0, 2*len(group))
			for _, e := range group {
				pairs = append(pairs, int64(e.To), int64(e.From))
			}
			existing, err := queryEdges(ctx, t, kind, "SELECT "+EdgeColumns+" FROM "+rev+" WHERE (to_id, from_id) IN ("+
				repeatTuple(len(group))+")"+forUpdate(db.Dialect), pairs...)
			if err != nil {
				return err
			}
			cur := map[[2]sparrow.ID]sparrow.Edge{}
			for _, e := range existing {
				cur[[2]sparrow.ID{e.From, e.To}] = e
			}
			var apply []sparrow.Edge
			var deltas []any
			nd := 0
			for _, e := range group {
				k := [2]sparrow.ID{e.From, e.To}
				prev, had := cur[k]
				if had && prev.Version >= e.Version {
					continue // stale or replayed: already applied
				}
				cur[k] = e
				apply = append(apply, e)
				counter, counted := reverseCounters[kind]
				if !counted {
					continue
				}
				d := 0
				if e.Active && (!had || !prev.Active) {
					d = 1
				} else if !e.Active && had && prev.Active {
					d = -1
				}
				if d != 0 {
					deltas = append(deltas, int64(newID(e.To.Shard())), int64(e.To), int(counter), d)
					nd++
				}
			}
			if len(apply) == 0 {
				continue
			}
			// Reverse rows keep the forward row's columns, keyed the other way round.
			args := make([]any, 0, len(apply)*len(edgeCols))
			for _, e := range apply {
				args = append(args, EdgeArgs(e)...)
			}
			if _, err := t.ExecContext(ctx, upsertSQL(db.Dialect, rev, edgeCols, []string{"to_id", "from_id"},
				[]string{"state", "version", "edge_id", "reblogs", "notify", "updated_at"}, len(apply)), args...); err != nil {
				return err
			}
			if nd > 0 {
				if _, err := t.ExecContext(ctx, "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES "+
					RepeatRow(4, nd), deltas...); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func repeatTuple(n int) string { return RepeatRow(2, n) }

// RepeatRow returns n comma-separated rows of cols placeholders,
// "(?,?),(?,?)", the VALUES list of a multi-row INSERT ("" for n = 0).
func RepeatRow(cols, n int) string {
	row := "(" + Placeholders(cols) + ")"
	b := make([]byte, 0, n*(len(row)+1))
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, row...)
	}
	return string(b)
}

// Edges returns forward rows from→to.
func (s *Store) Edges(ctx context.Context, kind sparrow.EdgeKind, from sparrow.ID, to []sparrow.ID) (map[sparrow.ID]sparrow.Edge, error) {
	fwd, _, err := edgeTables(kind)
	if err != nil || len(to) == 0 {
		return map[sparrow.ID]sparrow.Edge{}, err
	}
	db := s.shards.ForID(from)
	in, args := inIDs(to)
	got, err := queryEdges(ctx, stmtQuerier{db}, kind, "SELECT "+EdgeColumns+" FROM "+fwd+" WHERE from_id = ? AND to_id IN ("+in+")",
		append([]any{int64(from)}, args...)...)
	if err != nil {
		return nil, db.Translate(err, "edges")
	}
	out := make(map[sparrow.ID]sparrow.Edge, len(got))
	for _, e := range got {
		out[e.To] = e
	}
	return out, nil
}

// ReverseEdges returns reverse rows to←from, read on to's shard.
func (s *Store) ReverseEdges(ctx context.Context, kind sparrow.EdgeKind, to sparrow.ID, from []sparrow.ID) (map[sparrow.ID]sparrow.Edge, error) {
	_, rev, err := edgeTables(kind)
	if err != nil || rev == "" || len(from) == 0 {
		return map[sparrow.ID]sparrow.Edge{}, err
	}
	db := s.shards.ForID(to)
	in, args := inIDs(from)
	got, err := queryEdges(ctx, stmtQuerier{db}, kind, "SELECT "+EdgeColumns+" FROM "+rev+" WHERE to_id = ? AND from_id IN ("+in+")",
		append([]any{int64(to)}, args...)...)
	if err != nil {
		return nil, db.Translate(err, "reverse edges")
	}
	out := make(map[sparrow.ID]sparrow.Edge, len(got))
	for _, e := range got {
		out[e.From] = e
	}
	return out, nil
}

// ListForward pages active forward edges newest first (idx_*_list, covering).
func (s *Store) ListForward(ctx context.Context, kind sparrow.EdgeKind, from sparrow.ID, p sparrow.Page) ([]sparrow.Edge, error) {
	fwd, _, err := edgeTables(kind)
	if err != nil {
		return nil, err
	}
	return s.listEdges(ctx, kind, fwd, "from_id", from, p)
}

// ListReverse pages active reverse edges newest first.
func (s *Store) ListReverse(ctx context.Context, kind sparrow.EdgeKind, to sparrow.ID, p sparrow.Page) ([]sparrow.Edge, error) {
	_, rev, err := edgeTables(kind)
	if err != nil {
		return nil, err
	}
	if rev == "" {
		return nil, sparrow.Errorf(sparrow.EInternal, "%s edges have no reverse table", kind)
	}
	return s.listEdges(ctx, kind, rev, "to_id", to, p)
}

func (s *Store) listEdges(ctx context.Context, kind sparrow.EdgeKind, table, keyCol string, key sparrow.ID, p sparrow.Page) ([]sparrow.Edge, error) {
	q := "SELECT " + EdgeColumns + " FROM " + table + " WHERE " + keyCol + " = ? AND state = 1"
	args := []any{int64(key)}
	if p.MaxID != 0 {
		q, args = q+" AND edge_id < ?", append(args, int64(p.MaxID))
	}
	if lo := p.Lower(); lo != 0 {
		q, args = q+" AND edge_id > ?", append(args, int64(lo))
	}
	order := " ORDER BY edge_id DESC LIMIT "
	if p.Ascending() {
		order = " ORDER BY edge_id ASC LIMIT "
	}
	db := s.shards.ForID(key)
	limit := max(p.Limit, 1)
	out, err := queryEdges(ctx, stmtQuerier{db}, kind, q+order+itoa(literalLimit(limit)), args...)
	if err != nil {
		return nil, db.Translate(err, "list edges")
	}
	out = out[:min(len(out), limit)] // the literal rounds the limit up
	if p.Ascending() {
		sort.Slice(out, func(i, j int) bool { return out[i].EdgeID > out[j].EdgeID })
	}
	return out, nil
}

// FollowingIDs returns every account from actively follows, ascending.
func (s *Store) FollowingIDs(ctx context.Context, from sparrow.ID) ([]sparrow.ID, error) {
	db := s.shards.ForID(from)
	rows, err := db.R.QueryContext(ctx, "SELECT to_id FROM following WHERE from_id = ? AND state = 1 ORDER BY to_id", int64(from))
	if err != nil {
		return nil, db.Translate(err, "following ids")
	}
	defer rows.Close()
	var out []sparrow.ID
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, db.Translate(err, "following ids")
		}
		out = append(out, sparrow.ID(id))
	}
	return out, db.Translate(rows.Err(), "following ids")
}

// RelationRows reads, in one round trip on viewer's shard, the rows of the
// parts wanted between viewer and the given accounts: viewer's forward
// follows, follow requests, blocks and mutes, and the reverse follows,
// follow requests and blocks that point at viewer (AllParts: every row a
// Relationship needs).
func (s *Store) RelationRows(ctx context.Context, viewer sparrow.ID, ids []sparrow.ID, want sparrow.RelationPart) (sparrow.RelationRows, error) {
	out := sparrow.RelationRows{Following: map[sparrow.ID]sparrow.Edge{}, FollowedBy: map[sparrow.ID]sparrow.Edge{},
		Blocking: map[sparrow.ID]sparrow.Edge{}, BlockedBy: map[sparrow.ID]sparrow.Edge{}, Muting: map[sparrow.ID]sparrow.Edge{},
		Requested: map[sparrow.ID]sparrow.Edge{}, RequestedBy: map[sparrow.ID]sparrow.Edge{}}
	if len(ids) == 0 || want == 0 {
		return out, nil
	}
	in, inArgs := inIDs(ids)
	parts := []struct {
		part                   sparrow.RelationPart
		tag, table, key, other string
		into                   map[sparrow.ID]sparrow.Edge
		kind                   sparrow.EdgeKind
	}{
		{sparrow.PartFollowing, "1", "following", "from_id", "to_id", out.Following, sparrow.Follow},
		{sparrow.PartFollowedBy, "2", "followers", "to_id", "from_id", out.FollowedBy, sparrow.Follow},
		{sparrow.PartBlocking, "3", "blocks", "from_id", "to_id", out.Blocking, sparrow.Block},
		{sparrow.PartBlockedBy, "4", "blocked_by", "to_id", "from_id", out.BlockedBy, sparrow.Block},
		{sparrow.PartMuting, "5", "mutes", "from_id", "to_id", out.Muting, sparrow.Mute},
		{sparrow.PartRequested, "6", "follow_requests", "from_id", "to_id", out.Requested, sparrow.FollowRequest},
		{sparrow.PartRequestedBy, "7", "follow_requested_by", "to_id", "from_id", out.RequestedBy, sparrow.FollowRequest},
	}
	var q string
	var args []any
	for _, p := range parts {
		if want&p.part == 0 {
			continue
		}
		if q != "" {
			q += " UNION ALL "
		}
		q += "SELECT " + p.tag + ", " + EdgeColumns + " FROM " + p.table + " WHERE " + p.key + " = ? AND state = 1 AND " + p.other + " IN (" + in + ")"
		args = append(append(args, int64(viewer)), inArgs...)
	}
	db := s.shards.ForID(viewer)
	rows, err := db.queryR(ctx, q, args...)
	if err != nil {
		return out, db.Translate(err, "relationships")
	}
	defer rows.Close()
	for rows.Next() {
		var tag int
		var e sparrow.Edge
		var state, reblogs, notify int
		var at int64
		if err := rows.Scan(&tag, &e.From, &e.To, &state, &e.Version, &e.EdgeID, &reblogs, &notify, &at); err != nil {
			return out, db.Translate(err, "relationships")
		}
		p := parts[tag-1]
		e.Kind, e.Active, e.Reblogs, e.Notify, e.At = p.kind, state == 1, reblogs != 0, notify != 0, time.UnixMilli(at).UTC()
		if p.key == "from_id" {
			p.into[e.To] = e
		} else {
			p.into[e.From] = e
		}
	}
	return out, db.Translate(rows.Err(), "relationships")
}
