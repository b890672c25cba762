package service

import (
	"context"
	"maps"
	"slices"
	"time"

	"sparrow"
)

// fanoutChunk is how many follower rows are read, and how many inboxes are
// written, per round trip.
const fanoutChunk = 1000

// HandleFeedEvent is the fan-out consumer. It is idempotent (inbox and list
// writes are set operations) and tolerates replays:
//   - status.created: a hot author's status goes to its recent list (seeded
//     from its profile feed when the author has just turned hot); any other
//     status is pushed to the inboxes of the author's active followers, most
//     recently active first, in pipelined chunks (push mode: hot authors too;
//     pull mode: nothing);
//   - status.deleted: the status leaves the inboxes and the recent list;
//   - edges.changed: unfollow, block and mute remove the other's statuses
//     (the merge on follow runs in the Follower consumer, see MergeFollowee).
func (f *Feed) HandleFeedEvent(ctx context.Context, e sparrow.Event) error {
	if f.c.FeedMode == ModePull {
		return nil
	}
	switch e.Type {
	case sparrow.EvStatusCreated:
		st, err := e.DecodeStatus()
		if err != nil {
			return err
		}
		return f.deliver(ctx, st)
	case sparrow.EvStatusDeleted:
		st, err := e.DecodeStatus()
		if err != nil {
			return err
		}
		return f.retract(ctx, st)
	case sparrow.EvEdges:
		var p sparrow.EdgePayload
		if err := e.Decode(&p); err != nil {
			return err
		}
		for _, edge := range p.Edges {
			if err := f.graphChanged(ctx, edge); err != nil {
				return err
			}
		}
	}
	return nil
}

func itemOf(s *sparrow.Status) sparrow.FeedItem {
	return sparrow.FeedItem{ID: s.ID, Author: s.AccountID, Reblog: s.ReblogOfID}
}

// deliver pushes a new status (docs/seeds.md#seed-001 step 2.4, tiered by activity).
func (f *Feed) deliver(ctx context.Context, s *sparrow.Status) error {
	author, err := f.d.Accounts.Account(ctx, s.AccountID)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	item := itemOf(s)
	if f.c.FeedMode == ModeHybrid && author.Hot {
		if err = f.ensureRecentList(ctx, author.ID); err != nil {
			return err
		}
		return f.d.Recent.Append(ctx, author.ID, item, s.CreatedAt)
	}
	users, err := f.recipients(ctx, s)
	if err != nil {
		return err
	}
	return f.pushTiered(ctx, users, []sparrow.FeedItem{item}, s.CreatedAt)
}

// pushTiered pushes items to users (already ordered most recently active
// first) in chunks, reporting the delivery lag of each chunk.
func (f *Feed) pushTiered(ctx context.Context, users []sparrow.ID, items []sparrow.FeedItem, postedAt time.Time) error {
	for start := 0; start < len(users); start += fanoutChunk {
		chunk := users[start:min(start+fanoutChunk, len(users))]
		for _, it := range items {
			if err := f.d.Inboxes.Push(ctx, chunk, it); err != nil {
				return err
			}
		}
		f.Observer.Delivered(len(chunk)*len(items), f.now().Sub(postedAt))
	}
	return nil
}

// ensureRecentList seeds a hot author's recent list from its profile feed the
// first time it is needed (the author has just turned hot): nothing it posted
// before is missed by readers who merge the list.
func (f *Feed) ensureRecentList(ctx context.Context, author sparrow.ID) error {
	_, _, ok, err := f.d.Recent.Read(ctx, author, sparrow.Page{Limit: 1})
	if err != nil || ok {
		return err
	}
	items, err := f.d.Statuses.AuthorsFeed(ctx, []sparrow.ID{author}, sparrow.Page{Limit: f.c.RecentCap})
	if err != nil {
		return err
	}
	var floor sparrow.ID
	if len(items) >= f.c.RecentCap {
		floor = items[len(items)-1].ID
	}
	return f.d.Recent.Seed(ctx, author, items, floor)
}

// recipients applies the write-side routing policies and returns the inboxes
// that get s, most recently active first: the author itself (docs/seeds.md#seed-001 step
// 2.3), whatever the visibility; for a direct status, the mentioned accounts
// that follow the author;
// otherwise the author's followers that are active (seen within
// --active-days), do not block or mute the author, and are not blocked by it.
func (f *Feed) recipients(ctx context.Context, s *sparrow.Status) ([]sparrow.ID, error) {
	author := s.AccountID
	var candidates []sparrow.ID
	if s.Visibility == sparrow.Direct {
		rev, err := f.d.Relations.ReverseEdges(ctx, sparrow.Follow, author, s.Mentions)
		if err != nil {
			return nil, err
		}
		for id, e := range rev {
			if e.Active {
				candidates = append(candidates, id)
			}
		}
		users, err := f.eligible(ctx, author, candidates)
		return append([]sparrow.ID{author}, users...), err
	}
	var out []sparrow.ID
	var seen []seenUser
	p := sparrow.Page{Limit: fanoutChunk}
	for {
		edges, err := f.d.Relations.ListReverse(ctx, sparrow.Follow, author, p)
		if err != nil {
			return nil, err
		}
		chunk := make([]sparrow.ID, 0, len(edges))
		for _, e := range edges {
			// A follow with reblogs=false does not receive the followee's reblogs.
			if s.ReblogOfID == 0 || e.Reblogs {
				chunk = append(chunk, e.From)
			}
		}
		got, err := f.activeAmong(ctx, author, chunk)
		if err != nil {
			return nil, err
		}
		seen = append(seen, got...)
		if len(edges) < p.Limit {
			break
		}
		p.MaxID = edges[len(edges)-1].EdgeID
	}
	// Tiers: the most recently active followers first (docs/seeds.md#seed-001's 5-27 note).
	slices.SortFunc(seen, func(a, b seenUser) int { return b.at.Compare(a.at) })
	out = append(out, author)
	for _, u := range seen {
		if u.id != author {
			out = append(out, u.id)
		}
	}
	return out, nil
}

type seenUser struct {
	id sparrow.ID
	at time.Time
}

// activeAmong keeps the users seen within --active-days that pass the
// block/mute policy, with their last-seen time.
func (f *Feed) activeAmong(ctx context.Context, author sparrow.ID, users []sparrow.ID) ([]seenUser, error) {
	if len(users) == 0 {
		return nil, nil
	}
	seen, err := f.d.Activity.LastSeen(ctx, users)
	if err != nil {
		return nil, err
	}
	cut := f.activeSince()
	var active []sparrow.ID
	for _, u := range users {
		if t, ok := seen[u]; ok && !t.Before(cut) {
			active = append(active, u)
		}
	}
	ok, err := f.eligible(ctx, author, active)
	if err != nil {
		return nil, err
	}
	out := make([]seenUser, len(ok))
	for i, u := range ok {
		out[i] = seenUser{u, seen[u]}
	}
	return out, nil
}

// eligible drops users who mute or block the author, or whom it blocks.
// The users' own mute and block rows live on their shards: if some of those
// stores do not answer, the users they hold get nothing pushed now and lose
// their inboxes (see unreadable), and the others get the status at once,
// rather than every follower waiting for the store to come back.
func (f *Feed) eligible(ctx context.Context, author sparrow.ID, users []sparrow.ID) ([]sparrow.ID, error) {
	if len(users) == 0 {
		return nil, nil
	}
	muting, blocking, err := f.userRows(ctx, author, users)
	if sparrow.IsKind(err, sparrow.EUnavailable) && ctx.Err() == nil {
		users, muting, blocking, err = f.readableRows(ctx, author, users)
	}
	if err != nil {
		return nil, err
	}
	blocked, err := f.d.Relations.Edges(ctx, sparrow.Block, author, users)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(users), func(u sparrow.ID) bool {
		return muting[u].Active || blocking[u].Active || blocked[u].Active
	}), nil
}

// userRows reads the users' mute and block rows pointing at author (one
// read per physical store of the users, each the source of truth).
func (f *Feed) userRows(ctx context.Context, author sparrow.ID, users []sparrow.ID) (muting, blocking map[sparrow.ID]sparrow.Edge, err error) {
	if muting, err = f.d.Relations.EdgesTo(sparrow.Strict(ctx), sparrow.Mute, users, author); err != nil {
		return nil, nil, err
	}
	blocking, err = f.d.Relations.EdgesTo(sparrow.Strict(ctx), sparrow.Block, users, author)
	return muting, blocking, err
}

// readableRows is userRows for users some of whose stores do not answer: it
// reads the rows gene by gene (each gene is on one store), keeps the users
// whose rows it could read, and unreadable drops the others' inboxes. It is
// slower than userRows, and runs only while a store is down.
func (f *Feed) readableRows(ctx context.Context, author sparrow.ID, users []sparrow.ID) (readable []sparrow.ID, muting, blocking map[sparrow.ID]sparrow.Edge, err error) {
	byGene := map[int][]sparrow.ID{}
	for _, u := range users {
		byGene[u.Shard()] = append(byGene[u.Shard()], u)
	}
	muting, blocking = map[sparrow.ID]sparrow.Edge{}, map[sparrow.ID]sparrow.Edge{}
	var lost []sparrow.ID
	for _, group := range byGene {
		m, b, err := f.userRows(ctx, author, group)
		if sparrow.IsKind(err, sparrow.EUnavailable) && ctx.Err() == nil {
			lost = append(lost, group...)
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		maps.Copy(muting, m)
		maps.Copy(blocking, b)
		readable = append(readable, group...)
	}
	if err := f.unreadable(ctx, lost); err != nil {
		return nil, nil, nil, err
	}
	return readable, muting, blocking, nil
}

// unreadable drops the inboxes of users whose rows cannot be read (their
// store is down): a status pushed to them now could not be checked against
// their mutes and blocks, and one not pushed would be missing from their
// inbox. Without an inbox, their next home read rebuilds it by pull, from
// the stores, deciding from their own rows then.
func (f *Feed) unreadable(ctx context.Context, users []sparrow.ID) error {
	if len(users) == 0 {
		return nil
	}
	f.d.Logger.Warn("fan-out: followers on a store that does not answer lose their inboxes (rebuilt by pull when they read)", "users", len(users))
	return f.d.Inboxes.Drop(ctx, users...)
}

// retract removes a deleted status from its author's followers' inboxes and
// from its recent list (reads filter it meanwhile).
func (f *Feed) retract(ctx context.Context, s *sparrow.Status) error {
	if err := f.d.Recent.Remove(ctx, s.AccountID, s.ID); err != nil {
		return err
	}
	users := []sparrow.ID{s.AccountID}
	p := sparrow.Page{Limit: fanoutChunk}
	for {
		edges, err := f.d.Relations.ListReverse(ctx, sparrow.Follow, s.AccountID, p)
		if err != nil {
			return err
		}
		for _, e := range edges {
			users = append(users, e.From)
		}
		if err := f.d.Inboxes.RemoveStatus(ctx, users, s.ID); err != nil {
			return err
		}
		users = users[:0]
		if len(edges) < p.Limit {
			return nil
		}
		p.MaxID = edges[len(edges)-1].EdgeID
	}
}

// graphChanged keeps an inbox in step with its owner's follows, blocks and mutes.
func (f *Feed) graphChanged(ctx context.Context, e sparrow.Edge) error {
	switch {
	case e.Kind == sparrow.Follow && !e.Active, e.Kind == sparrow.Block && e.Active, e.Kind == sparrow.Mute && e.Active:
		return f.d.Inboxes.RemoveAuthor(ctx, e.From, e.To)
	}
	return nil
}

// MergeFollowee adds a new followee's newest statuses to the follower's inbox
// (pushes at or below the inbox floor are ignored; a hot followee is merged at
// read instead). It must run after the Follower row of the follow is applied:
// a status whose fan-out walked the followers before that row existed is
// then found here, and one posted later is found by its fan-out. An unfilled
// inbox gets the statuses too, since its rebuild may predate the follow.
func (f *Feed) MergeFollowee(ctx context.Context, follower, followee sparrow.ID) error {
	if f.c.FeedMode == ModePull {
		return nil
	}
	_, st, err := f.d.Inboxes.Read(ctx, follower, sparrow.Page{Limit: 1})
	if err != nil || !st.Exists {
		return err // no inbox: its rebuild will pull everything
	}
	if f.c.FeedMode == ModeHybrid {
		lists, lerr := f.d.Recent.Authors(ctx)
		if lerr != nil || lists[followee] {
			return lerr
		}
	}
	items, err := f.d.Statuses.AuthorsFeed(ctx, []sparrow.ID{followee}, sparrow.Page{SinceID: st.Floor, Limit: f.c.InboxCap})
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := f.d.Inboxes.Push(ctx, []sparrow.ID{follower}, it); err != nil {
			return err
		}
	}
	return nil
}
