package http

import (
	"net/http"

	"sparrow"
)

// timelines returns s.Timelines, or EUnavailable if the server was built
// without it.
func (s *Server) timelines() (sparrow.TimelineService, error) {
	if s.Timelines == nil {
		return nil, sparrow.Errorf(sparrow.EUnavailable, "Timelines are not available")
	}
	return s.Timelines, nil
}

// timelinePage reads the paging parameters, runs read and writes the page of
// statuses with its Link header (by status id), as account statuses do.
func (s *Server) timelinePage(w http.ResponseWriter, r *http.Request, p *params,
	read func(tl sparrow.TimelineService, v sparrow.Viewer, page sparrow.Page) ([]*sparrow.StatusView, error)) error {
	tl, err := s.timelines()
	if err != nil {
		return err
	}
	page, err := pageParams(p, sparrow.MaxLimit)
	if err != nil {
		return err
	}
	svs, err := read(tl, viewerFrom(r.Context()), page)
	if err != nil {
		return err
	}
	return s.writeStatusPage(w, r, svs, page.Limit)
}

// remoteOrMedia answers an empty page for what Sparrow cannot have: remote
// statuses (it does not federate) and media (it stores none).
func remoteOrMedia(p *params) bool { return p.Bool("remote") || p.Bool("only_media") }

// homeTimeline answers the viewer's home timeline (GET /api/v1/timelines/home).
func (s *Server) homeTimeline(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.timelinePage(w, r, p, func(tl sparrow.TimelineService, v sparrow.Viewer, page sparrow.Page) ([]*sparrow.StatusView, error) {
		return tl.Home(r.Context(), v, page)
	})
}

// publicTimeline answers the local public timeline
// (GET /api/v1/timelines/public). Every status is local, so local is
// accepted and changes nothing; remote=true and only_media=true answer an
// empty list.
func (s *Server) publicTimeline(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.timelinePage(w, r, p, func(tl sparrow.TimelineService, v sparrow.Viewer, page sparrow.Page) ([]*sparrow.StatusView, error) {
		if remoteOrMedia(p) {
			return nil, nil
		}
		return tl.Keyed(r.Context(), v, "public", "", page)
	})
}

// tagTimeline answers the public statuses with a hashtag
// (GET /api/v1/timelines/tag/{hashtag}), case-insensitive, with or without a
// leading '#'; an invalid tag is 404. local is accepted; remote=true and
// only_media=true answer an empty list. Combining tags (any[], all[],
// none[]) is not supported: 422 rather than an unfiltered answer.
func (s *Server) tagTimeline(w http.ResponseWriter, r *http.Request, p *params) error {
	for _, k := range []string{"any", "all", "none"} {
		if len(p.Strings(k)) > 0 {
			return sparrow.Errorf(sparrow.EInvalid, "Combining hashtags (%s[]) is not supported", k)
		}
	}
	return s.timelinePage(w, r, p, func(tl sparrow.TimelineService, v sparrow.Viewer, page sparrow.Page) ([]*sparrow.StatusView, error) {
		if remoteOrMedia(p) {
			return nil, nil
		}
		return tl.Keyed(r.Context(), v, "tag", r.PathValue("hashtag"), page)
	})
}

// objectStatuses answers the public and unlisted statuses posted about an
// object (GET /api/v1/x/objects/{type}/{key}/statuses), Sparrow's extension
// for docs/seeds.md#seed-002's object feeds: a status posted with object "book:isbn-1"
// appears at /api/v1/x/objects/book/isbn-1/statuses. type is 1-32 of a-z,
// 0-9 and '_'; key is 1-200 non-space characters (a '/' in it is sent as
// %2F); anything else is 404. It pages like the other timelines.
func (s *Server) objectStatuses(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.timelinePage(w, r, p, func(tl sparrow.TimelineService, v sparrow.Viewer, page sparrow.Page) ([]*sparrow.StatusView, error) {
		return tl.Keyed(r.Context(), v, "object", r.PathValue("type")+":"+r.PathValue("key"), page)
	})
}

// keyedFeed answers a page of any registered keyed feed
// (GET /api/v1/x/feeds/{feed}?key=…), Sparrow's extension: "tag" (key the
// hashtag), "object" (key "type:key"), "public" (no key), and any kind added
// since (docs/architecture.md, "Adding a new feed type"). An unknown feed or
// a key it cannot have is 404. It pages like the other timelines.
func (s *Server) keyedFeed(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.timelinePage(w, r, p, func(tl sparrow.TimelineService, v sparrow.Viewer, page sparrow.Page) ([]*sparrow.StatusView, error) {
		return tl.Keyed(r.Context(), v, r.PathValue("feed"), p.String("key"), page)
	})
}
