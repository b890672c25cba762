package sparrow

// Page is a cursor window over an id-ordered list, as Mastodon pages:
// MaxID excludes ids ≥ it, SinceID excludes ids ≤ it, and MinID, like SinceID,
// excludes ids ≤ it but asks for the oldest items above it instead of the newest.
// Zero means unset. Results are always returned newest first.
type Page struct {
	MaxID   ID
	SinceID ID
	MinID   ID
	Limit   int
}

// Page limits.
const (
	DefaultLimit = 20
	MaxLimit     = 40
)

// Normalize clamps Limit into [1, max] (default DefaultLimit) and returns p.
func (p Page) Normalize(max int) Page {
	if p.Limit <= 0 {
		p.Limit = DefaultLimit
	}
	if p.Limit > max {
		p.Limit = max
	}
	return p
}

// Ascending reports whether the page is read upward from MinID.
func (p Page) Ascending() bool { return p.MinID != 0 }

// Lower returns the exclusive lower bound (MinID or SinceID, the larger), or 0.
func (p Page) Lower() ID {
	if p.MinID > p.SinceID {
		return p.MinID
	}
	return p.SinceID
}

// Contains reports whether id lies inside the page's bounds (ignoring Limit).
func (p Page) Contains(id ID) bool {
	return (p.MaxID == 0 || id < p.MaxID) && id > p.Lower()
}
