package http

import (
	"net/http"
	"strings"

	"sparrow"
)

// MastodonVersion is the Mastodon API version Sparrow claims to be compatible
// with; clients use it to decide which features to offer.
const MastodonVersion = "4.3.0"

// Limits Sparrow announces in the instance configuration. Sparrow has no
// media or polls: their limits are zero and their types empty.
const (
	charactersReservedPerURL = 23
	maxFeaturedTags          = 10
	maxPinnedStatuses        = 5
	defaultMaxChars          = 500
)

// InstanceV1 is https://docs.joinmastodon.org/entities/V1_Instance/.
type InstanceV1 struct {
	URI              string         `json:"uri"`
	Title            string         `json:"title"`
	ShortDescription string         `json:"short_description"`
	Description      string         `json:"description"`
	Email            string         `json:"email"`
	Version          string         `json:"version"`
	URLs             instanceURLs   `json:"urls"`
	Stats            instanceStats  `json:"stats"`
	Thumbnail        *string        `json:"thumbnail"`
	Languages        []string       `json:"languages"`
	Registrations    bool           `json:"registrations"`
	ApprovalRequired bool           `json:"approval_required"`
	InvitesEnabled   bool           `json:"invites_enabled"`
	Configuration    instanceConfig `json:"configuration"`
	ContactAccount   *Account       `json:"contact_account"`
	Rules            []instanceRule `json:"rules"`
}

type instanceURLs struct {
	StreamingAPI string `json:"streaming_api"`
}

type instanceStats struct {
	UserCount   int64 `json:"user_count"`
	StatusCount int64 `json:"status_count"`
	DomainCount int64 `json:"domain_count"`
}

type instanceRule struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// instanceConfig is the configuration of both instance versions; URLs,
// Vapid and Translation are v2 only.
type instanceConfig struct {
	URLs             *instanceV2URLs      `json:"urls,omitempty"`
	Vapid            *instanceVapid       `json:"vapid,omitempty"`
	Accounts         instanceAccounts     `json:"accounts"`
	Statuses         instanceStatuses     `json:"statuses"`
	MediaAttachments instanceMedia        `json:"media_attachments"`
	Polls            instancePolls        `json:"polls"`
	Translation      *instanceTranslation `json:"translation,omitempty"`
}

type instanceV2URLs struct {
	Streaming string `json:"streaming"`
}

type instanceVapid struct {
	PublicKey string `json:"public_key"`
}

type instanceAccounts struct {
	MaxFeaturedTags   int `json:"max_featured_tags"`
	MaxPinnedStatuses int `json:"max_pinned_statuses"`
}

type instanceStatuses struct {
	MaxCharacters            int `json:"max_characters"`
	MaxMediaAttachments      int `json:"max_media_attachments"`
	CharactersReservedPerURL int `json:"characters_reserved_per_url"`
}

type instanceMedia struct {
	SupportedMimeTypes  []string `json:"supported_mime_types"`
	ImageSizeLimit      int      `json:"image_size_limit"`
	ImageMatrixLimit    int      `json:"image_matrix_limit"`
	VideoSizeLimit      int      `json:"video_size_limit"`
	VideoFrameRateLimit int      `json:"video_frame_rate_limit"`
	VideoMatrixLimit    int      `json:"video_matrix_limit"`
}

type instancePolls struct {
	MaxOptions             int `json:"max_options"`
	MaxCharactersPerOption int `json:"max_characters_per_option"`
	MinExpiration          int `json:"min_expiration"`
	MaxExpiration          int `json:"max_expiration"`
}

type instanceTranslation struct {
	Enabled bool `json:"enabled"`
}

// InstanceV2 is https://docs.joinmastodon.org/entities/Instance/.
type InstanceV2 struct {
	Domain        string                `json:"domain"`
	Title         string                `json:"title"`
	Version       string                `json:"version"`
	SourceURL     string                `json:"source_url"`
	Description   string                `json:"description"`
	Usage         instanceUsage         `json:"usage"`
	Thumbnail     instanceThumbnail     `json:"thumbnail"`
	Languages     []string              `json:"languages"`
	Configuration instanceConfig        `json:"configuration"`
	Registrations instanceRegistrations `json:"registrations"`
	Contact       instanceContact       `json:"contact"`
	Rules         []instanceRule        `json:"rules"`
}

type instanceUsage struct {
	Users struct {
		ActiveMonth int64 `json:"active_month"`
	} `json:"users"`
}

type instanceThumbnail struct {
	URL string `json:"url"`
}

type instanceRegistrations struct {
	Enabled          bool    `json:"enabled"`
	ApprovalRequired bool    `json:"approval_required"`
	Message          *string `json:"message"`
}

type instanceContact struct {
	Email   string   `json:"email"`
	Account *Account `json:"account"`
}

// instance returns the description of this server, or EUnavailable if the
// wiring set none; the domain defaults to Server.Domain.
func (s *Server) instance(r *http.Request) (sparrow.Instance, error) {
	if s.Instance == nil {
		return sparrow.Instance{}, sparrow.Errorf(sparrow.EUnavailable, "Instance information is unavailable")
	}
	in := s.Instance(r.Context())
	if in.Domain == "" {
		in.Domain = s.Domain
	}
	if in.MaxChars <= 0 {
		in.MaxChars = defaultMaxChars
	}
	return in, nil
}

// versionString is the Mastodon-compatible version: "4.3.0 (compatible;
// Sparrow x.y.z)". A version that already says "compatible" is kept.
func versionString(v string) string {
	if strings.Contains(v, "compatible") {
		return v
	}
	if v == "" {
		v = "dev"
	}
	return MastodonVersion + " (compatible; Sparrow " + v + ")"
}

// streamingURL is the websocket URL of BaseURL (http→ws, https→wss).
func (s *Server) streamingURL() string {
	base := s.baseURL()
	switch {
	case strings.HasPrefix(base, "https://"):
		return "wss://" + strings.TrimPrefix(base, "https://")
	case strings.HasPrefix(base, "http://"):
		return "ws://" + strings.TrimPrefix(base, "http://")
	}
	return base
}

// config is the configuration shared by both versions.
func config(in sparrow.Instance) instanceConfig {
	return instanceConfig{
		Accounts: instanceAccounts{MaxFeaturedTags: maxFeaturedTags, MaxPinnedStatuses: maxPinnedStatuses},
		Statuses: instanceStatuses{
			MaxCharacters:            in.MaxChars,
			MaxMediaAttachments:      0,
			CharactersReservedPerURL: charactersReservedPerURL,
		},
		MediaAttachments: instanceMedia{SupportedMimeTypes: []string{}},
	}
}

// instanceV1 answers GET /api/v1/instance.
func (s *Server) instanceV1(w http.ResponseWriter, r *http.Request, p *params) error {
	in, err := s.instance(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, InstanceV1{
		URI:              in.Domain,
		Title:            in.Title,
		ShortDescription: in.Description,
		Description:      in.Description,
		Email:            in.ContactEmail,
		Version:          versionString(in.Version),
		URLs:             instanceURLs{StreamingAPI: s.streamingURL()},
		Stats:            instanceStats{UserCount: in.UserCount, StatusCount: in.StatusCount},
		Languages:        []string{"en"},
		Registrations:    in.Registrations,
		Configuration:    config(in),
		Rules:            []instanceRule{},
	})
	return nil
}

// instanceV2 answers GET /api/v2/instance.
func (s *Server) instanceV2(w http.ResponseWriter, r *http.Request, p *params) error {
	in, err := s.instance(r)
	if err != nil {
		return err
	}
	cfg := config(in)
	cfg.URLs = &instanceV2URLs{Streaming: s.streamingURL()}
	cfg.Vapid = &instanceVapid{}
	cfg.Translation = &instanceTranslation{Enabled: false}
	out := InstanceV2{
		Domain:        in.Domain,
		Title:         in.Title,
		Version:       versionString(in.Version),
		SourceURL:     in.SourceURL,
		Description:   in.Description,
		Thumbnail:     instanceThumbnail{URL: s.baseURL() + "/thumbnail.png"},
		Languages:     []string{"en"},
		Configuration: cfg,
		Registrations: instanceRegistrations{Enabled: in.Registrations},
		Contact:       instanceContact{Email: in.ContactEmail},
		Rules:         []instanceRule{},
	}
	out.Usage.Users.ActiveMonth = in.UserCount
	writeJSON(w, http.StatusOK, out)
	return nil
}
