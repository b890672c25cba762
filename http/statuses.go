package http

import (
	"net/http"
	"strings"

	"sparrow"
)

// postStatus posts a status (POST /api/v1/statuses): status, spoiler_text,
// sensitive, language, visibility, in_reply_to_id, quoted_status_id and the
// Sparrow extension object ("type:key"), honouring the Idempotency-Key
// header. Media, polls and scheduling are not supported: a request using
// them is 422 rather than silently posted without them.
func (s *Server) postStatus(w http.ResponseWriter, r *http.Request, p *params) error {
	if err := unsupportedStatusParams(p); err != nil {
		return err
	}
	replyTo, err := p.ID("in_reply_to_id")
	if err != nil {
		return err
	}
	quote, err := p.ID("quoted_status_id")
	if err != nil {
		return err
	}
	sv, err := s.Statuses.Post(r.Context(), viewerFrom(r.Context()), sparrow.PostStatus{
		Text:           p.String("status"),
		SpoilerText:    p.String("spoiler_text"),
		Sensitive:      p.Bool("sensitive"),
		Language:       p.String("language"),
		Visibility:     sparrow.Visibility(p.String("visibility")),
		InReplyToID:    replyTo,
		QuoteID:        quote,
		Object:         p.String("object"),
		IdempotencyKey: strings.TrimSpace(r.Header.Get("Idempotency-Key")),
	})
	if err != nil {
		return err
	}
	return s.writeStatus(w, r, sv, false)
}

// unsupportedStatusParams rejects media_ids, poll and scheduled_at.
func unsupportedStatusParams(p *params) error {
	if len(p.Strings("media_ids")) > 0 {
		return sparrow.Errorf(sparrow.EInvalid, "Media attachments are not supported")
	}
	for k := range p.v {
		if strings.HasPrefix(k, "poll[") {
			return sparrow.Errorf(sparrow.EInvalid, "Polls are not supported")
		}
	}
	if p.String("scheduled_at") != "" {
		return sparrow.Errorf(sparrow.EInvalid, "Scheduled statuses are not supported")
	}
	return nil
}

// getStatus answers a status (GET /api/v1/statuses/{id}).
func (s *Server) getStatus(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	sv, err := s.Statuses.Status(r.Context(), viewerFrom(r.Context()), id)
	if err != nil {
		return err
	}
	return s.writeStatus(w, r, sv, false)
}

// editStatus edits the viewer's status (PUT /api/v1/statuses/{id}): status,
// spoiler_text, sensitive and language. As in Mastodon an edit replaces the
// whole status: parameters not sent are empty (the service keeps the old
// language when language is "").
func (s *Server) editStatus(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err = unsupportedStatusParams(p); err != nil {
		return err
	}
	sv, err := s.Statuses.Edit(r.Context(), viewerFrom(r.Context()), id, sparrow.EditStatus{
		Text:        p.String("status"),
		SpoilerText: p.String("spoiler_text"),
		Sensitive:   p.Bool("sensitive"),
		Language:    p.String("language"),
	})
	if err != nil {
		return err
	}
	return s.writeStatus(w, r, sv, false)
}

// deleteStatus deletes the viewer's status (DELETE /api/v1/statuses/{id}) and
// answers it as it was, with its source in text, so that clients can offer
// "delete and redraft".
func (s *Server) deleteStatus(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	sv, err := s.Statuses.Delete(r.Context(), viewerFrom(r.Context()), id)
	if err != nil {
		return err
	}
	return s.writeStatus(w, r, sv, true)
}

// statusHistory answers the revisions of a status, oldest first
// (GET /api/v1/statuses/{id}/history).
func (s *Server) statusHistory(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	edits, author, err := s.Statuses.History(r.Context(), viewerFrom(r.Context()), id)
	if err != nil {
		return err
	}
	rd := s.renderer(r)
	out := make([]StatusEdit, len(edits))
	for i, e := range edits {
		out[i] = rd.statusEdit(e, author)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// statusSource answers the plain text of the viewer's own status, for editing
// (GET /api/v1/statuses/{id}/source). Another account's status is 403, as in
// Mastodon (only the author may update it).
func (s *Server) statusSource(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	v := viewerFrom(r.Context())
	sv, err := s.Statuses.Status(r.Context(), v, id)
	if err != nil {
		return err
	}
	if sv.Status.AccountID != v.AccountID {
		return sparrow.Errorf(sparrow.EForbidden, "This action is not allowed")
	}
	writeJSON(w, http.StatusOK, StatusSource{
		ID:          sv.Status.ID.String(),
		Text:        sv.Status.Text,
		SpoilerText: sv.Status.SpoilerText,
	})
	return nil
}

// writeStatus renders one status; withSource sets its text to the source.
func (s *Server) writeStatus(w http.ResponseWriter, r *http.Request, sv *sparrow.StatusView, withSource bool) error {
	st, err := s.renderer(r).status(sv)
	if err != nil {
		return err
	}
	if withSource {
		st.Text = ptr(sv.Status.Text)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}
