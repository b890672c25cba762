package sqlstore

import (
	"context"
	"sort"
	"strings"
	"sync"

	"sparrow"
)

// pullChunk bounds the subqueries of one compound statement (SQLite allows
// 500 terms in a compound SELECT).
const pullChunk = 200

// pullSizes are the author counts the compound statements are prepared for;
// a smaller group is padded with author 0, which owns nothing, so that a
// handful of prepared statements serve every query.
var pullSizes = []int{1, 4, 16, 64, pullChunk}

// AuthorsFeed returns the newest live items by the given authors inside p,
// newest first, at most p.Limit: the pull path of the home feed (docs/seeds.md#seed-000's
// author IN (followings)), done as well as pull can be done:
//   - LIMIT pushdown: each author is a subquery with its own small LIMIT k,
//     read from idx_statuses_pull alone; the stores are queried in parallel;
//   - adaptive depth: k starts near 2·Limit/authors; after merging, only the
//     authors whose k rows were all above the page's cutoff (so more of theirs
//     may belong in the page) are read again, below their last row. The
//     result is exact, usually after one or two rounds, and reads about
//     2·Limit rows instead of Limit per author.
//
// Direct statuses are included: the caller's policy decides who sees them.
func (s *Store) AuthorsFeed(ctx context.Context, authors []sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, error) {
	if len(authors) == 0 || p.Limit <= 0 {
		return nil, nil
	}
	k := literalLimit(min(max(2, (2*p.Limit+len(authors)-1)/len(authors)), p.Limit))
	todo := make([]pending, len(authors))
	for i, a := range authors {
		todo[i] = pending{a, p}
	}
	var all []sparrow.FeedItem
	for round := 0; len(todo) > 0; round++ {
		// One round: every pending author with its own window, grouped by
		// store and window, in parallel.
		got, err := s.pullRound(ctx, todo, k)
		if err != nil {
			return nil, err
		}
		all = append(all, got.items...)
		sort.Slice(all, func(i, j int) bool { return all[i].ID > all[j].ID })
		if p.Ascending() {
			if len(all) > p.Limit {
				all = all[len(all)-p.Limit:]
			}
		} else if len(all) > p.Limit {
			all = all[:p.Limit]
		}
		// The cutoff: the page's last item once the page is full.
		full := len(all) == p.Limit
		var next []pending
		for a, last := range got.truncated {
			np := pending{author: a, page: p}
			if p.Ascending() {
				if full && last >= all[0].ID {
					continue // nothing more of a's can enter the page
				}
				np.page.MinID, np.page.SinceID = last, 0
			} else {
				if full && last <= all[len(all)-1].ID {
					continue
				}
				np.page.MaxID = last
			}
			next = append(next, np)
		}
		todo = next
		k = literalLimit(min(p.Limit, k*4))
	}
	return all, nil
}

// pullResult is one round: the rows read, and for each author that returned
// as many rows as asked (it may have more), its last row's id.
type pullResult struct {
	items     []sparrow.FeedItem
	truncated map[sparrow.ID]sparrow.ID
}

// pending is an author still to be read in a window.
type pending struct {
	author sparrow.ID
	page   sparrow.Page
}

func (s *Store) pullRound(ctx context.Context, todo []pending, k int) (pullResult, error) {
	type key struct {
		db   *DB
		page sparrow.Page
	}
	groups := map[key][]sparrow.ID{}
	for _, t := range todo {
		kk := key{s.shards.ForID(t.author), t.page}
		groups[kk] = append(groups[kk], t.author)
	}
	type result struct {
		items []sparrow.FeedItem
		err   error
	}
	results := make(chan result, len(todo)/pullChunk+len(groups)+1)
	var wg sync.WaitGroup
	for g, group := range groups {
		for start := 0; start < len(group); start += pullChunk {
			end := min(start+pullChunk, len(group))
			wg.Add(1)
			go func(db *DB, part []sparrow.ID, p sparrow.Page) {
				defer wg.Done()
				items, err := s.authorsFeedOn(ctx, db, part, p, k)
				results <- result{items, err}
			}(g.db, group[start:end], g.page)
		}
	}
	wg.Wait()
	close(results)
	out := pullResult{truncated: map[sparrow.ID]sparrow.ID{}}
	counts := map[sparrow.ID]int{}
	for r := range results {
		if sparrow.SkipUnavailable(ctx, r.err) {
			continue // a partial read: these authors' items are left out
		}
		if r.err != nil {
			return out, r.err
		}
		out.items = append(out.items, r.items...)
	}
	// Items of one author arrive in its order (newest first, or oldest first
	// for ascending pages); the last one read is its boundary.
	asc := len(todo) > 0 && todo[0].page.Ascending()
	for _, it := range out.items {
		counts[it.Author]++
		last, seen := out.truncated[it.Author]
		if !seen || (!asc && it.ID < last) || (asc && it.ID > last) {
			out.truncated[it.Author] = it.ID
		}
	}
	for a, n := range counts {
		if n < k {
			delete(out.truncated, a)
		}
	}
	return out, nil
}

// authorsFeedOn reads at most k items per author inside p on one store, all
// of them (no outer limit), each author's in page order.
func (s *Store) authorsFeedOn(ctx context.Context, db *DB, authors []sparrow.ID, p sparrow.Page, k int) ([]sparrow.FeedItem, error) {
	cond := ""
	var bound []any
	if p.MaxID != 0 {
		cond, bound = cond+" AND id < ?", append(bound, int64(p.MaxID))
	}
	if lo := p.Lower(); lo != 0 {
		cond, bound = cond+" AND id > ?", append(bound, int64(lo))
	}
	order := "DESC"
	if p.Ascending() {
		order = "ASC"
	}
	size := pullChunk
	for _, n := range pullSizes {
		if n >= len(authors) {
			size = n
			break
		}
	}
	padded := make([]sparrow.ID, size)
	copy(padded, authors)
	parts := make([]string, size)
	args := make([]any, 0, size*(1+len(bound)))
	for i, a := range padded {
		// k is written as a literal (an int the store computed, never
		// input): SQLite re-prepares a statement whenever a bound LIMIT
		// changes, which made compiling cost more than running.
		parts[i] = "SELECT * FROM (SELECT id, account_id, reblog_of_id FROM statuses WHERE account_id = ? AND deleted_at = 0" +
			cond + " ORDER BY id " + order + " LIMIT " + itoa(k) + ") t" + itoa(i)
		args = append(append(args, int64(a)), bound...)
	}
	rows, err := db.queryR(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, db.Translate(err, "authors feed")
	}
	defer rows.Close()
	var out []sparrow.FeedItem
	for rows.Next() {
		var it sparrow.FeedItem
		if err := rows.Scan(&it.ID, &it.Author, &it.Reblog); err != nil {
			return nil, db.Translate(err, "authors feed")
		}
		out = append(out, it)
	}
	return out, db.Translate(rows.Err(), "authors feed")
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// EdgesTo returns, among froms, the active forward edges of kind that point at
// to (e.g. which of these followers mute the author), grouping the reads by
// the physical store of each source.
func (s *Store) EdgesTo(ctx context.Context, kind sparrow.EdgeKind, froms []sparrow.ID, to sparrow.ID) (map[sparrow.ID]sparrow.Edge, error) {
	fwd, _, err := edgeTables(kind)
	out := map[sparrow.ID]sparrow.Edge{}
	if err != nil || len(froms) == 0 {
		return out, err
	}
	for db, group := range s.shards.GroupByDB(froms) {
		in, args := inIDs(group)
		got, err := queryEdges(ctx, stmtQuerier{db}, kind, "SELECT "+EdgeColumns+" FROM "+fwd+" WHERE to_id = ? AND state = 1 AND from_id IN ("+
			in+")", append([]any{int64(to)}, args...)...)
		if err != nil {
			if err = db.Translate(err, "edges to"); sparrow.SkipUnavailable(ctx, err) {
				continue // a partial read: callers that decide access read with sparrow.Strict
			}
			return nil, err
		}
		for _, e := range got {
			out[e.From] = e
		}
	}
	return out, nil
}
