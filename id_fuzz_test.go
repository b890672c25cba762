package sparrow

import "testing"

// FuzzParseID: any string either is ENotFound or parses to a positive id
// that formats back to a string that parses to the same id.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"1", "0", "-1", "9223372036854775807", "9223372036854775808", "007", " 1", "1e3", "", "１"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			if ErrorKind(err) != ENotFound {
				t.Fatalf("ParseID(%q) error kind %s, want %s", s, ErrorKind(err), ENotFound)
			}
			return
		}
		if id <= 0 {
			t.Fatalf("ParseID(%q) = %d, not positive", s, id)
		}
		back, err := ParseID(id.String())
		if err != nil || back != id {
			t.Fatalf("round trip of %q: %d → %q → %d, %v", s, id, id.String(), back, err)
		}
		if id.Shard() < 0 || id.Shard() >= NumShards {
			t.Fatalf("shard %d", id.Shard())
		}
	})
}

// FuzzPage: cursors and limits of any value give a page whose limit is in
// [1, max], whose bounds are the ones given, and whose Contains agrees
// with them.
func FuzzPage(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), 0, 40, int64(5))
	f.Add(int64(100), int64(10), int64(50), -3, 80, int64(60))
	f.Add(int64(-1), int64(-5), int64(0), 1<<30, 1, int64(-1))
	f.Fuzz(func(t *testing.T, maxID, sinceID, minID int64, limit, max int, probe int64) {
		if max < 1 {
			max = 1
		}
		p := Page{MaxID: ID(maxID), SinceID: ID(sinceID), MinID: ID(minID), Limit: limit}.Normalize(max)
		if p.Limit < 1 || p.Limit > max {
			t.Fatalf("limit %d outside [1, %d]", p.Limit, max)
		}
		lower := max64(sinceID, minID)
		want := (maxID == 0 || probe < maxID) && probe > lower
		if got := p.Contains(ID(probe)); got != want {
			t.Fatalf("%+v Contains(%d) = %v, want %v", p, probe, got, want)
		}
		if p.Ascending() != (minID != 0) {
			t.Fatalf("Ascending = %v with MinID %d", p.Ascending(), minID)
		}
	})
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
