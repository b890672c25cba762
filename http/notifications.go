package http

import (
	"net/http"

	"sparrow"
)

// Scopes of the notification routes (Mastodon's NotificationsController).
const (
	scopeReadNotifications  sparrow.Scope = "read:notifications"
	scopeWriteNotifications sparrow.Scope = "write:notifications"
)

// Notification lists page as Mastodon's: 40 by default, at most 80.
const (
	defaultNotificationsLimit = 40
	maxNotificationsLimit     = 80
)

// Notification is https://docs.joinmastodon.org/entities/Notification/.
// status is omitted for types without one (follow); group_key is the
// ungrouped key of Mastodon 4.3, as Sparrow does not group notifications.
type Notification struct {
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	GroupKey  string  `json:"group_key"`
	CreatedAt string  `json:"created_at"`
	Account   Account `json:"account"`
	Status    *Status `json:"status,omitempty"`
}

// notification renders a notification view.
func (rd renderer) notification(nv *sparrow.NotificationView) (Notification, error) {
	n := nv.Notification
	out := Notification{ID: n.ID.String(), Type: string(n.Type), GroupKey: "ungrouped-" + n.ID.String(),
		CreatedAt: formatTime(n.CreatedAt), Account: rd.account(nv.Account)}
	if nv.Status != nil {
		st, err := rd.status(nv.Status)
		if err != nil {
			return Notification{}, err
		}
		out.Status = st
	}
	return out, nil
}

// notifications returns s.Notifications, or EUnavailable if the server was
// built without it.
func (s *Server) notifications() (sparrow.NotificationService, error) {
	if s.Notifications == nil {
		return nil, sparrow.Errorf(sparrow.EUnavailable, "Notifications are not available")
	}
	return s.Notifications, nil
}

// listNotifications pages the viewer's notifications, newest first
// (GET /api/v1/notifications): types[] keeps only those types,
// exclude_types[] drops types, account_id keeps those from one account;
// max_id, since_id, min_id and limit (40 by default, at most 80) page by
// notification id, with a Link header.
func (s *Server) listNotifications(w http.ResponseWriter, r *http.Request, p *params) error {
	svc, err := s.notifications()
	if err != nil {
		return err
	}
	page, err := pageParamsDefault(p, defaultNotificationsLimit, maxNotificationsLimit)
	if err != nil {
		return err
	}
	from, err := p.ID("account_id")
	if err != nil {
		return err
	}
	f := sparrow.NotificationFilter{From: from}
	for _, t := range p.Strings("types") {
		f.Types = append(f.Types, sparrow.NotificationType(t))
	}
	for _, t := range p.Strings("exclude_types") {
		f.ExcludeTypes = append(f.ExcludeTypes, sparrow.NotificationType(t))
	}
	nvs, err := svc.List(r.Context(), viewerFrom(r.Context()), f, page)
	if err != nil {
		return err
	}
	rd := s.renderer(r)
	out := make([]Notification, 0, len(nvs))
	for _, nv := range nvs {
		n, err := rd.notification(nv)
		if err != nil {
			return err
		}
		out = append(out, n)
	}
	if len(nvs) > 0 {
		s.setLinkHeader(w, r, len(nvs), nvs[0].Notification.ID, nvs[len(nvs)-1].Notification.ID, page.Limit)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getNotification answers one of the viewer's notifications
// (GET /api/v1/notifications/{id}); someone else's is 404.
func (s *Server) getNotification(w http.ResponseWriter, r *http.Request, p *params) error {
	svc, err := s.notifications()
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	nv, err := svc.Get(r.Context(), viewerFrom(r.Context()), id)
	if err != nil {
		return err
	}
	n, err := s.renderer(r).notification(nv)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, n)
	return nil
}

// clearNotifications deletes all the viewer's notifications
// (POST /api/v1/notifications/clear) and answers {}.
func (s *Server) clearNotifications(w http.ResponseWriter, r *http.Request, p *params) error {
	svc, err := s.notifications()
	if err != nil {
		return err
	}
	if err := svc.Clear(r.Context(), viewerFrom(r.Context())); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct{}{})
	return nil
}

// dismissNotification deletes one of the viewer's notifications
// (POST /api/v1/notifications/{id}/dismiss) and answers {}; an absent one
// is not an error.
func (s *Server) dismissNotification(w http.ResponseWriter, r *http.Request, p *params) error {
	svc, err := s.notifications()
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := svc.Dismiss(r.Context(), viewerFrom(r.Context()), id); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct{}{})
	return nil
}
