package service

import (
	"context"
	"slices"

	"sparrow"
)

// visibility is the read policy of statuses (seed 002's RouteService rules for
// privacy), applied to every read and written once for every backend.
type visibility struct {
	follows FollowChecker
}

// canSee reports whether v may see s:
//   - public and unlisted: everyone;
//   - private: the author, the accounts it mentions, and the author's followers;
//   - direct: the author and the accounts it mentions;
//   - deleted statuses: nobody.
func (p visibility) canSee(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (bool, error) {
	if s.Deleted() {
		return false, nil
	}
	switch s.Visibility {
	case sparrow.Public, sparrow.Unlisted:
		return true, nil
	}
	if v.Anonymous() {
		return false, nil
	}
	if v.AccountID == s.AccountID || slices.Contains(s.Mentions, v.AccountID) {
		return true, nil
	}
	if s.Visibility == sparrow.Private && p.follows != nil {
		return p.follows.Follows(ctx, v.AccountID, s.AccountID)
	}
	return false, nil
}

// profileVisibilities returns the visibilities of author's statuses that v
// may list on the author's profile feed. Direct statuses never show on a
// profile except the author's own.
func (p visibility) profileVisibilities(ctx context.Context, v sparrow.Viewer, author sparrow.ID) ([]sparrow.Visibility, error) {
	if !v.Anonymous() && v.AccountID == author {
		return nil, nil // all
	}
	vis := []sparrow.Visibility{sparrow.Public, sparrow.Unlisted}
	if !v.Anonymous() && p.follows != nil {
		ok, err := p.follows.Follows(ctx, v.AccountID, author)
		if err != nil {
			return nil, err
		}
		if ok {
			vis = append(vis, sparrow.Private)
		}
	}
	return vis, nil
}
