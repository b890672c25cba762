package inmem

import (
	"math/rand/v2"
	"slices"
	"testing"

	"sparrow"
)

// model is the obvious implementation of a feedList: a set and a floor.
type model struct {
	ids   map[sparrow.ID]bool
	floor sparrow.ID
}

func (m *model) sorted() []sparrow.ID {
	var out []sparrow.ID
	for id := range m.ids {
		out = append(out, id)
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

func (m *model) trim(limit int) {
	s := m.sorted()
	for _, id := range s[min(limit, len(s)):] {
		delete(m.ids, id)
		m.floor = max(m.floor, id)
	}
}

// TestFeedListMatchesModel runs random operations on feedLists of several
// caps and checks each against the model and the buffer bound.
func TestFeedListMatchesModel(t *testing.T) {
	for _, limit := range []int{1, 2, 5, 17, 100} {
		r := rand.New(rand.NewPCG(1, uint64(limit)))
		var l feedList
		m := &model{ids: map[sparrow.ID]bool{}}
		newest := sparrow.ID(1000)
		for step := range 20_000 {
			switch op := r.IntN(100); {
			case op < 70: // mostly the newest, sometimes a bit older
				id := newest + 1
				if r.IntN(3) == 0 {
					id = newest - sparrow.ID(r.IntN(3*limit+3))
				}
				newest = max(newest, id)
				l.add(sparrow.FeedItem{ID: id}, limit)
				if id > m.floor {
					m.ids[id] = true
					m.trim(limit)
				}
			case op < 80:
				id := newest - sparrow.ID(r.IntN(2*limit+2))
				l.remove(id)
				delete(m.ids, id)
			case op < 85:
				odd := func(it sparrow.FeedItem) bool { return it.ID%2 == 1 }
				l.removeIf(odd)
				for id := range m.ids {
					if id%2 == 1 {
						delete(m.ids, id)
					}
				}
			default:
				floor := newest - sparrow.ID(r.IntN(3*limit+3))
				var its []sparrow.FeedItem
				for range r.IntN(2 * limit) {
					its = append(its, sparrow.FeedItem{ID: floor - 2 + sparrow.ID(r.IntN(3*limit))})
				}
				l.merge(its, floor, limit)
				for id := range m.ids {
					if id <= floor {
						delete(m.ids, id)
					}
				}
				for _, it := range its {
					if it.ID > floor {
						m.ids[it.ID] = true
					}
				}
				m.floor = floor
				m.trim(limit)
			}
			got := make([]sparrow.ID, 0, len(l.items()))
			for _, it := range l.items() {
				got = append(got, it.ID)
			}
			if want := m.sorted(); !slices.Equal(got, want) || l.floor != m.floor {
				t.Fatalf("cap %d, step %d: got %v floor %d, want %v floor %d", limit, step, got, l.floor, want, m.floor)
			}
			if len(l.buf) > limit+max(limit/4, 4) {
				t.Fatalf("cap %d, step %d: buffer of %d items", limit, step, len(l.buf))
			}
		}
	}
}
