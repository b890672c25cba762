package service

import (
	"context"
	"fmt"
	"slices"

	"sparrow"
)

// Notification list limits (Mastodon's: 40 by default, at most 80).
const (
	notifDefaultLimit = 40
	notifMaxLimit     = 80
)

// Notifications implements sparrow.NotificationService, and its Handle is the
// bus consumer that creates notifications from events.
//
// The policy lives here, once: a notification is created only if its
// recipient may see what it is about, never for the author itself, and not
// from an account the recipient blocks; a mute drops mentions always (as
// Mastodon filters mentions of muted accounts) and other notifications when
// the mute hides notifications (the mute row's Notify flag).
type Notifications struct {
	d        Deps
	statuses *Statuses
}

var _ sparrow.NotificationService = (*Notifications)(nil)

// NewNotifications returns the notification service over d's Notifications,
// Relations, Accounts and Statuses stores, ids and clock, reading statuses
// with the visibility policy and hydration of statuses.
func NewNotifications(d Deps, statuses *Statuses) *Notifications {
	if d.Clock == nil {
		d.Clock = sparrow.SystemClock{}
	}
	return &Notifications{d: d, statuses: statuses}
}

// Handle creates notifications from status.created (mention: the mentioned
// accounts and the replied-to author) and edges.changed (follow: each follow
// edge that is active). Other events are ignored; a payload that does not
// decode is sparrow.ErrMalformedEvent (the bus dead-letters it). Idempotent: each notification has a key derived from the event
// ("mention:<status>", "follow:<from>:<edge id>"), so replays add nothing,
// while a re-follow after an unfollow (a new edge id) notifies again.
func (n *Notifications) Handle(ctx context.Context, e sparrow.Event) error {
	var ns []sparrow.Notification
	var err error
	switch e.Type {
	case sparrow.EvStatusCreated:
		if ns, err = n.notifMentions(ctx, e); err == nil {
			var rb []sparrow.Notification
			rb, err = n.notifReblog(ctx, e)
			ns = append(ns, rb...)
		}
	case sparrow.EvEdges:
		if ns, err = n.notifFollows(ctx, e); err == nil {
			var fav []sparrow.Notification
			fav, err = n.notifFavourites(ctx, e)
			ns = append(ns, fav...)
		}
	}
	if err != nil || len(ns) == 0 {
		return err
	}
	return n.d.Notifications.AddNotifications(ctx, ns)
}

// notifMentions builds the mention notifications of a new status: to each
// mentioned account and to the replied-to author, once each, never to the
// author, and only to accounts that may see the status (a private reply does
// not notify a parent author who does not follow; a direct one notifies only
// the mentioned). Reblogs notify nobody here.
func (n *Notifications) notifMentions(ctx context.Context, e sparrow.Event) ([]sparrow.Notification, error) {
	st, err := e.DecodeStatus()
	if err != nil {
		return nil, err
	}
	if st.Deleted() || st.ReblogOfID != 0 {
		return nil, nil
	}
	recipients := slices.Clone(st.Mentions)
	if st.InReplyToAccountID != 0 {
		recipients = append(recipients, st.InReplyToAccountID)
	}
	var out []sparrow.Notification
	seen := map[sparrow.ID]bool{}
	for _, r := range recipients {
		if r == 0 || r == st.AccountID || seen[r] {
			continue
		}
		seen[r] = true
		acc := n.statuses.policy.access(sparrow.Viewer{AccountID: r})
		err := acc.ensureFor(ctx, []*sparrow.Status{st}, false)
		ok := err == nil && acc.canSee(st)
		if ok {
			ok, err = n.notifAllowed(ctx, r, st.AccountID, sparrow.NotifyMention)
		}
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, n.notifNew(r, st.AccountID, sparrow.NotifyMention, st.ID, fmt.Sprintf("mention:%d", st.ID), e))
		}
	}
	return out, nil
}

// notifFollows builds the follow and follow_request notifications of the
// active follow and follow-request edges of an edges.changed event. The
// event does not carry the previous state, so every active edge is a
// candidate; its key holds the edge id, which is renewed only by an
// activation, so that option changes of an existing follow (same edge id)
// add nothing. A follow that ends a follow request in the same event is an
// authorization, which the followed account made itself: as in Mastodon,
// it notifies nobody.
func (n *Notifications) notifFollows(ctx context.Context, e sparrow.Event) ([]sparrow.Notification, error) {
	var p sparrow.EdgePayload
	if err := e.Decode(&p); err != nil {
		return nil, err
	}
	var out []sparrow.Notification
	for _, edge := range p.Edges {
		if !edge.Active || edge.From == edge.To || edge.To == 0 {
			continue
		}
		var typ sparrow.NotificationType
		switch edge.Kind {
		case sparrow.Follow:
			typ = sparrow.NotifyFollow
			if slices.ContainsFunc(p.Edges, func(o sparrow.Edge) bool { return o.Kind == sparrow.FollowRequest && o.To == edge.To && !o.Active }) {
				continue // an authorized request
			}
		case sparrow.FollowRequest:
			typ = sparrow.NotifyFollowRequest
		default:
			continue
		}
		ok, err := n.notifAllowed(ctx, edge.To, edge.From, typ)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, n.notifNew(edge.To, edge.From, typ, 0, fmt.Sprintf("%s:%d:%d", typ, edge.From, edge.EdgeID), e))
		}
	}
	return out, nil
}

func (n *Notifications) notifNew(to, from sparrow.ID, typ sparrow.NotificationType, status sparrow.ID, key string, e sparrow.Event) sparrow.Notification {
	at := e.CreatedAt
	if at.IsZero() {
		at = n.d.Clock.Now()
	}
	return sparrow.Notification{ID: n.d.IDs.Next(to.Shard()), Recipient: to, Type: typ, From: from, StatusID: status,
		Key: key, CreatedAt: at.UTC()}
}

// notifAllowed applies the recipient's blocks and mutes of from (its forward
// rows, on its own shard).
func (n *Notifications) notifAllowed(ctx context.Context, recipient, from sparrow.ID, typ sparrow.NotificationType) (bool, error) {
	blocks, err := n.d.Relations.Edges(ctx, sparrow.Block, recipient, []sparrow.ID{from})
	if err != nil {
		return false, err
	}
	if b, ok := blocks[from]; ok && b.Active {
		return false, nil
	}
	mutes, err := n.d.Relations.Edges(ctx, sparrow.Mute, recipient, []sparrow.ID{from})
	if err != nil {
		return false, err
	}
	if m, ok := mutes[from]; ok && m.Active && (typ == sparrow.NotifyMention || m.Notify) {
		return false, nil
	}
	return true, nil
}

// List pages v's notifications, newest first (limit 40 by default, at most
// 80), filtered by f. Notifications whose status is gone or hidden from v,
// whose sender is gone, or whose sender v now blocks are dropped, and further
// batches are read so that a page is full while older notifications exist.
func (n *Notifications) List(ctx context.Context, v sparrow.Viewer, f sparrow.NotificationFilter, p sparrow.Page) ([]*sparrow.NotificationView, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	if p.Limit <= 0 {
		p.Limit = notifDefaultLimit
	}
	p = p.Normalize(notifMaxLimit)
	// Unknown types match nothing (Mastodon ignores them): they never reach
	// a store. Types asked for that are all unknown leave nothing to list.
	asked := len(f.Types) > 0
	f.Types = slices.DeleteFunc(slices.Clone(f.Types), func(t sparrow.NotificationType) bool { return !knownNotification(t) })
	f.ExcludeTypes = slices.DeleteFunc(slices.Clone(f.ExcludeTypes), func(t sparrow.NotificationType) bool { return !knownNotification(t) })
	if asked && len(f.Types) == 0 {
		return nil, nil
	}
	return keyedFill(p, func(x sparrow.Notification) sparrow.ID { return x.ID },
		func(p sparrow.Page) ([]sparrow.Notification, error) {
			return n.d.Notifications.Notifications(ctx, v.AccountID, f, p)
		},
		func(ns []sparrow.Notification) ([]*sparrow.NotificationView, error) { return n.notifViews(ctx, v, ns) })
}

// knownNotification reports whether t is a type Sparrow creates.
func knownNotification(t sparrow.NotificationType) bool {
	switch t {
	case sparrow.NotifyMention, sparrow.NotifyFollow, sparrow.NotifyFollowRequest, sparrow.NotifyFavourite, sparrow.NotifyReblog:
		return true
	}
	return false
}

// Get returns one of v's notifications, or ENotFound (also when List would
// drop it).
func (n *Notifications) Get(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.NotificationView, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	x, err := n.d.Notifications.Notification(ctx, v.AccountID, id)
	if err != nil {
		return nil, err
	}
	views, err := n.notifViews(ctx, v, []sparrow.Notification{*x})
	if err != nil {
		return nil, err
	}
	if len(views) == 0 {
		return nil, notFound
	}
	return views[0], nil
}

// Dismiss deletes one of v's notifications; an absent one is not an error.
func (n *Notifications) Dismiss(ctx context.Context, v sparrow.Viewer, id sparrow.ID) error {
	if err := needUser(v); err != nil {
		return err
	}
	return n.d.Notifications.DismissNotification(ctx, v.AccountID, id)
}

// Clear deletes all of v's notifications.
func (n *Notifications) Clear(ctx context.Context, v sparrow.Viewer) error {
	if err := needUser(v); err != nil {
		return err
	}
	return n.d.Notifications.ClearNotifications(ctx, v.AccountID)
}

// notifViews hydrates notifications for v, in order: one read of v's rows
// with the senders (v's shard), one multi-get of statuses (hydrated by the
// statuses service, which applies the visibility policy and loads their
// accounts), and one multi-get of the senders that hydration did not load
// already. Dropped: notifications from senders v blocks, whose status v may
// not see (or that is gone), whose sender is gone, and follow requests that
// are no longer pending.
func (n *Notifications) notifViews(ctx context.Context, v sparrow.Viewer, ns []sparrow.Notification) ([]*sparrow.NotificationView, error) {
	if len(ns) == 0 {
		return nil, nil
	}
	var senders, statusIDs []sparrow.ID
	for _, x := range ns {
		if !slices.Contains(senders, x.From) {
			senders = append(senders, x.From)
		}
		if x.StatusID != 0 && !slices.Contains(statusIDs, x.StatusID) {
			statusIDs = append(statusIDs, x.StatusID)
		}
	}
	rows, err := n.d.Relations.RelationRows(ctx, v.AccountID, senders, sparrow.PartBlocking|sparrow.PartRequestedBy)
	if err != nil {
		return nil, err
	}
	acc := n.statuses.policy.access(v)
	views := map[sparrow.ID]*sparrow.StatusView{}
	accounts := map[sparrow.ID]*sparrow.Account{}
	if len(statusIDs) > 0 {
		sts, err := n.d.Statuses.Statuses(ctx, statusIDs)
		if err != nil {
			return nil, err
		}
		svs, err := n.statuses.hydrate(ctx, acc, sts, readDirect)
		if err != nil {
			return nil, err
		}
		for _, sv := range svs {
			views[sv.Status.ID] = sv
			for id, a := range sv.Accounts {
				accounts[id] = a
			}
		}
	}
	var missing []sparrow.ID
	for _, id := range senders {
		if accounts[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		accs, err := n.d.Accounts.Accounts(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, a := range accs {
			accounts[a.ID] = a
		}
	}
	out := make([]*sparrow.NotificationView, 0, len(ns))
	for i := range ns {
		x := &ns[i]
		if rows.Blocking[x.From].Active || accounts[x.From] == nil {
			continue
		}
		if x.Type == sparrow.NotifyFollowRequest && !rows.RequestedBy[x.From].Active {
			continue // authorized or rejected (the reverse copy on v's shard may lag: it only hides)
		}
		nv := &sparrow.NotificationView{Notification: x, Account: accounts[x.From]}
		if x.StatusID != 0 {
			if nv.Status = views[x.StatusID]; nv.Status == nil {
				continue
			}
		}
		out = append(out, nv)
	}
	return out, nil
}

// notifReblog notifies the original's author of a plain reblog.
func (n *Notifications) notifReblog(ctx context.Context, e sparrow.Event) ([]sparrow.Notification, error) {
	st, err := e.DecodeStatus()
	if err != nil || st.ReblogOfID == 0 {
		return nil, err
	}
	return n.notifAboutStatus(ctx, e, st.ReblogOfID, st.AccountID, sparrow.NotifyReblog, fmt.Sprintf("reblog:%d", st.ID))
}

// notifFavourites notifies statuses' authors of new favourites. Like follows,
// the key holds the edge id, renewed only by an activation.
func (n *Notifications) notifFavourites(ctx context.Context, e sparrow.Event) ([]sparrow.Notification, error) {
	var p sparrow.EdgePayload
	if err := e.Decode(&p); err != nil {
		return nil, err
	}
	var out []sparrow.Notification
	for _, edge := range p.Edges {
		if edge.Kind != sparrow.Favourite || !edge.Active {
			continue
		}
		got, err := n.notifAboutStatus(ctx, e, edge.To, edge.From, sparrow.NotifyFavourite, fmt.Sprintf("favourite:%d:%d", edge.From, edge.EdgeID))
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// notifAboutStatus builds a notification of typ to the author of status from
// account from, unless the author is from, the status is gone, or the
// author's blocks and mutes say no.
func (n *Notifications) notifAboutStatus(ctx context.Context, e sparrow.Event, status, from sparrow.ID, typ sparrow.NotificationType, key string) ([]sparrow.Notification, error) {
	st, err := n.d.Statuses.Status(ctx, status)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return nil, nil
	}
	if err != nil || st.Deleted() || st.AccountID == from {
		return nil, err
	}
	ok, err := n.notifAllowed(ctx, st.AccountID, from, typ)
	if err != nil || !ok {
		return nil, err
	}
	return []sparrow.Notification{n.notifNew(st.AccountID, from, typ, st.ID, key, e)}, nil
}
