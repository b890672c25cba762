package sparrow_test

import (
	"sync"
	"testing"
	"time"

	"sparrow"
)

type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *stepClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func TestIDCarriesGeneAndTime(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	g := sparrow.NewIDGen(63, &stepClock{t: at})
	for gene := 0; gene < sparrow.NumShards; gene++ {
		id := g.Next(gene)
		if id <= 0 {
			t.Fatalf("id %d not positive", id)
		}
		if id.Shard() != gene {
			t.Fatalf("gene %d: id %d has shard %d", gene, id, id.Shard())
		}
		if !id.Time().Equal(at) {
			t.Fatalf("time %v, want %v", id.Time(), at)
		}
	}
}

func TestIDMonotonicWhenClockStepsBack(t *testing.T) {
	c := &stepClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	g := sparrow.NewIDGen(1, c)
	prev := g.Next(7)
	for i := 0; i < 2000; i++ { // exhausts the 8-bit sequence several times
		if i == 500 {
			c.set(c.Now().Add(-time.Hour))
		}
		id := g.Next(7)
		if id <= prev {
			t.Fatalf("step %d: id %d not above %d", i, id, prev)
		}
		prev = id
	}
}

func TestIDUniqueAcrossNodesAndGoroutines(t *testing.T) {
	c := &stepClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)} // frozen clock: worst case
	var mu sync.Mutex
	seen := map[sparrow.ID]bool{}
	var wg sync.WaitGroup
	for node := 0; node < sparrow.MaxNodes; node++ {
		g := sparrow.NewIDGen(node, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]sparrow.ID, 0, 600)
			for i := 0; i < 600; i++ {
				ids = append(ids, g.Next(i%3))
			}
			mu.Lock()
			defer mu.Unlock()
			for _, id := range ids {
				if seen[id] {
					t.Errorf("duplicate id %d", id)
				}
				seen[id] = true
			}
		}()
	}
	wg.Wait()
}

func TestNextBalancedSpreadsGenes(t *testing.T) {
	g := sparrow.NewIDGen(0, nil)
	counts := make([]int, sparrow.NumShards)
	for i := 0; i < sparrow.NumShards*4; i++ {
		counts[g.NextBalanced().Shard()]++
	}
	for gene, n := range counts {
		if n != 4 {
			t.Fatalf("gene %d got %d ids, want 4", gene, n)
		}
	}
}

func TestParseID(t *testing.T) {
	for _, s := range []string{"", "abc", "-5", "0", "99999999999999999999"} {
		if _, err := sparrow.ParseID(s); !sparrow.IsKind(err, sparrow.ENotFound) {
			t.Errorf("ParseID(%q) = %v, want not found", s, err)
		}
	}
	if id, err := sparrow.ParseID("12345"); err != nil || id != 12345 {
		t.Fatalf("ParseID: %v %v", id, err)
	}
}

// BenchmarkIDGen measures id generation in one process across genes, in parallel.
func BenchmarkIDGen(b *testing.B) {
	g := sparrow.NewIDGen(1, nil)
	b.RunParallel(func(pb *testing.PB) {
		gene := 0
		for pb.Next() {
			g.Next(gene)
			gene++
		}
	})
}
