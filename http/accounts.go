package http

import (
	"net/http"

	"sparrow"
)

// register signs up an account with an app token (POST /api/v1/accounts):
// username, email, password, agreement, locale and reason. It answers the
// new user's Token.
func (s *Server) register(w http.ResponseWriter, r *http.Request, p *params) error {
	tok, err := s.Accounts.Register(r.Context(), viewerFrom(r.Context()), sparrow.Registration{
		Username:  p.String("username"),
		Email:     p.String("email"),
		Password:  p.String("password"),
		Agreement: p.Bool("agreement"),
		Locale:    p.String("locale"),
		Reason:    p.String("reason"),
	})
	if err != nil {
		return err
	}
	noStore(w)
	writeJSON(w, http.StatusOK, token(tok))
	return nil
}

// verifyCredentials answers the viewer's CredentialAccount
// (GET /api/v1/accounts/verify_credentials).
func (s *Server) verifyCredentials(w http.ResponseWriter, r *http.Request, p *params) error {
	v := viewerFrom(r.Context())
	a, err := s.Accounts.Account(r.Context(), v, v.AccountID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.renderer(r).credentialAccount(a))
	return nil
}

// updateCredentials changes the viewer's profile
// (PATCH /api/v1/accounts/update_credentials): display_name, note, locked and
// bot; parameters not sent are left unchanged. It answers the CredentialAccount.
func (s *Server) updateCredentials(w http.ResponseWriter, r *http.Request, p *params) error {
	a, err := s.Accounts.UpdateCredentials(r.Context(), viewerFrom(r.Context()), sparrow.AccountUpdate{
		DisplayName: p.OptString("display_name"),
		Note:        p.OptString("note"),
		Locked:      p.OptBool("locked"),
		Bot:         p.OptBool("bot"),
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.renderer(r).credentialAccount(a))
	return nil
}

// lookupAccount resolves acct, "user" or "user@domain"
// (GET /api/v1/accounts/lookup?acct=). A leading '@' is ignored.
func (s *Server) lookupAccount(w http.ResponseWriter, r *http.Request, p *params) error {
	acct := p.String("acct")
	if len(acct) > 0 && acct[0] == '@' {
		acct = acct[1:]
	}
	if acct == "" {
		return sparrow.Errorf(sparrow.EBadRequest, "Missing acct parameter")
	}
	a, err := s.Accounts.Lookup(r.Context(), viewerFrom(r.Context()), acct)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.renderer(r).account(a))
	return nil
}

// getAccount answers an account (GET /api/v1/accounts/{id}).
func (s *Server) getAccount(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	a, err := s.Accounts.Account(r.Context(), viewerFrom(r.Context()), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.renderer(r).account(a))
	return nil
}

// accountStatuses answers an account's statuses, newest first
// (GET /api/v1/accounts/{id}/statuses): max_id, since_id, min_id, limit
// (default 20, at most 40), exclude_replies, exclude_reblogs, only_media and
// pinned, with a Link header to the next and previous pages.
func (s *Server) accountStatuses(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	page, err := pageParams(p, sparrow.MaxLimit)
	if err != nil {
		return err
	}
	svs, err := s.Statuses.AccountStatuses(r.Context(), viewerFrom(r.Context()), id, sparrow.StatusFilter{
		ExcludeReplies: p.Bool("exclude_replies"),
		ExcludeReblogs: p.Bool("exclude_reblogs"),
		OnlyMedia:      p.Bool("only_media"),
		Pinned:         p.Bool("pinned"),
	}, page)
	if err != nil {
		return err
	}
	return s.writeStatusPage(w, r, svs, page.Limit)
}

// writeStatusPage renders a page of statuses, newest first, with its Link header.
func (s *Server) writeStatusPage(w http.ResponseWriter, r *http.Request, svs []*sparrow.StatusView, limit int) error {
	out, err := s.renderer(r).statuses(svs)
	if err != nil {
		return err
	}
	if len(svs) > 0 {
		s.setLinkHeader(w, r, len(svs), svs[0].Status.ID, svs[len(svs)-1].Status.ID, limit)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
