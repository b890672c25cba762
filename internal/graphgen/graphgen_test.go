package graphgen

import (
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"testing"

	"sparrow"
)

type edge struct{ from, to sparrow.ID }

func collect(t *testing.T, cfg Config) ([]edge, Stats) {
	t.Helper()
	var out []edge
	st, err := Generate(cfg, func(from, to sparrow.ID) error {
		out = append(out, edge{from, to})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Edges != int64(len(out)) {
		t.Fatalf("stats say %d edges, emitted %d", st.Edges, len(out))
	}
	return out, st
}

func TestAccountIDs(t *testing.T) {
	ids := AccountIDs(1000)
	seen := map[sparrow.ID]bool{}
	var perShard [sparrow.NumShards]int
	for i, id := range ids {
		if id <= 0 || seen[id] {
			t.Fatalf("id %d (user %d) is not positive or repeats", id, i)
		}
		seen[id] = true
		if id.Shard() != i%sparrow.NumShards {
			t.Fatalf("user %d has gene %d", i, id.Shard())
		}
		perShard[id.Shard()]++
		if i >= sparrow.NumShards && id <= ids[i-sparrow.NumShards] {
			t.Fatalf("ids of one gene do not increase at user %d", i)
		}
		if d := id.Time().Sub(IDTime); d < 0 || d > 1e9 {
			t.Fatalf("user %d: id time %v is far from IDTime", i, id.Time())
		}
	}
	if !slices.Equal(ids, AccountIDs(1000)) {
		t.Fatal("AccountIDs is not deterministic")
	}
}

func TestShape(t *testing.T) {
	cfg := Config{Users: 5000, MeanFollowing: 40, Zipf: 1.1, MaxFollowers: 1500, Seed: 7}
	edges, st := collect(t, cfg)
	ids := AccountIDs(cfg.Users)
	known := map[sparrow.ID]bool{}
	for _, id := range ids {
		known[id] = true
	}
	seen := map[edge]bool{}
	in := map[sparrow.ID]int{}
	out := map[sparrow.ID]int{}
	for _, e := range edges {
		if e.from == e.to {
			t.Fatalf("self follow %d", e.from)
		}
		if seen[e] {
			t.Fatalf("duplicate edge %v", e)
		}
		if !known[e.from] || !known[e.to] {
			t.Fatalf("edge %v names an unknown user", e)
		}
		seen[e] = true
		in[e.to]++
		out[e.from]++
	}
	maxIn := 0
	for _, n := range in {
		maxIn = max(maxIn, n)
	}
	if maxIn > cfg.MaxFollowers || maxIn != st.MaxFollowers {
		t.Fatalf("max followers %d (stats %d), cap %d", maxIn, st.MaxFollowers, cfg.MaxFollowers)
	}
	if len(out) != cfg.Users {
		t.Fatalf("%d users follow somebody, want all %d (min out-degree 1)", len(out), cfg.Users)
	}
	mean := float64(len(edges)) / float64(cfg.Users)
	if math.Abs(mean-cfg.MeanFollowing) > 0.05*cfg.MeanFollowing {
		t.Fatalf("mean following %.2f, want %.0f ± 5%%", mean, cfg.MeanFollowing)
	}
	// Power law: the cap binds at the top, the 10 most followed hold a large
	// share, and the median account has far fewer followers than the mean.
	counts := make([]int, 0, cfg.Users)
	for _, id := range ids {
		counts = append(counts, in[id])
	}
	slices.Sort(counts)
	slices.Reverse(counts)
	if counts[0] != cfg.MaxFollowers {
		t.Fatalf("top account has %d followers, want the cap %d", counts[0], cfg.MaxFollowers)
	}
	top10 := 0
	for _, c := range counts[:10] {
		top10 += c
	}
	if share := float64(top10) / float64(len(edges)); share < 0.05 {
		t.Fatalf("top 10 accounts hold %.1f%% of follows; not heavy-tailed", 100*share)
	}
	if median := counts[len(counts)/2]; float64(median) > mean/2 {
		t.Fatalf("median followers %d vs mean %.1f; not heavy-tailed", median, mean)
	}
}

func TestUniformAndUncapped(t *testing.T) {
	edges, st := collect(t, Config{Users: 2000, MeanFollowing: 10, Zipf: 0, Seed: 3})
	if st.Truncated != 0 {
		t.Fatalf("%d users truncated without a cap", st.Truncated)
	}
	// uniform: nobody gets much more than the mean
	if st.MaxFollowers > 40 {
		t.Fatalf("max followers %d under a uniform choice with mean 10", st.MaxFollowers)
	}
	if len(edges) == 0 {
		t.Fatal("no edges")
	}
}

// TestTightCap: a cap that cannot hold the wanted edges truncates out-degrees
// instead of looping or breaking the cap.
func TestTightCap(t *testing.T) {
	cfg := Config{Users: 300, MeanFollowing: 50, Zipf: 2, MaxFollowers: 5, Seed: 1}
	edges, st := collect(t, cfg)
	if st.MaxFollowers > 5 || len(edges) > 300*5 {
		t.Fatalf("cap broken: max %d, %d edges", st.MaxFollowers, len(edges))
	}
	if st.Truncated == 0 {
		t.Fatal("expected truncated users")
	}
	// a user that wants to follow everybody
	edges, _ = collect(t, Config{Users: 3, MeanFollowing: 1000, Zipf: 1, Seed: 1})
	if len(edges) != 6 {
		t.Fatalf("3 users who follow everybody: %d edges, want 6", len(edges))
	}
}

func TestDeterminism(t *testing.T) {
	sum := func(seed uint64) uint64 {
		h := fnv.New64a()
		_, err := Generate(Config{Users: 3000, MeanFollowing: 20, Zipf: 1.2, MaxFollowers: 500, Seed: seed}, func(from, to sparrow.ID) error {
			h.Write(strconv.AppendInt(strconv.AppendInt(nil, int64(from), 10), int64(to), 10))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return h.Sum64()
	}
	if a, b := sum(42), sum(42); a != b {
		t.Fatal("same seed, different graphs")
	}
	if sum(42) == sum(43) {
		t.Fatal("different seeds, same graph")
	}
}

func TestInvalid(t *testing.T) {
	for _, c := range []Config{
		{Users: 1, MeanFollowing: 1},
		{Users: 10, MeanFollowing: 0},
		{Users: 10, MeanFollowing: 1, Zipf: -1},
		{Users: 10, MeanFollowing: 1, Zipf: math.NaN()},
		{Users: 10, MeanFollowing: 1, MaxFollowers: -1},
	} {
		if _, err := Generate(c, func(_, _ sparrow.ID) error { return nil }); err == nil {
			t.Errorf("Generate(%+v) accepted", c)
		}
	}
}

func TestFenwickFind(t *testing.T) {
	f := newFenwick([]int64{3, 0, 2, 5})
	want := []int32{0, 0, 0, 2, 2, 3, 3, 3, 3, 3}
	for x, w := range want {
		if got := f.find(uint64(x)); got != w {
			t.Fatalf("find(%d) = %d, want %d", x, got, w)
		}
	}
	f.remove(2)
	if f.total != 8 || f.find(3) != 3 {
		t.Fatalf("after remove: total %d, find(3) = %d", f.total, f.find(3))
	}
	f.restore(2)
	if f.total != 10 || f.find(4) != 2 {
		t.Fatal("restore did not put the weight back")
	}
}

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		_, err := Generate(Config{Users: 100000, MeanFollowing: 100, Zipf: 1.1, MaxFollowers: 50000, Seed: 1}, func(_, _ sparrow.ID) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
}
