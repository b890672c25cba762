package graphgen

import "math/bits"

// fenwick is a binary indexed tree over integer weights: it draws an index
// with probability proportional to its weight, and takes indexes out of (and
// back into) the draw, each in O(log n). Integer weights keep removals and
// restorations exact.
type fenwick struct {
	tree  []int64 // 1-based partial sums
	base  []int64 // original weights
	cur   []int64 // current weights (0 = out of the draw)
	total int64
	top   int // highest power of two ≤ n
}

func newFenwick(w []int64) *fenwick {
	n := len(w)
	f := &fenwick{tree: make([]int64, n+1), base: w, cur: append([]int64(nil), w...)}
	for i, x := range w { // O(n) construction
		j := i + 1
		f.tree[j] += x
		if p := j + j&-j; p <= n {
			f.tree[p] += f.tree[j]
		}
		f.total += x
	}
	f.top = 1 << (bits.Len(uint(n)) - 1)
	return f
}

func (f *fenwick) add(i int32, d int64) {
	f.total += d
	for j := int(i) + 1; j < len(f.tree); j += j & -j {
		f.tree[j] += d
	}
}

// remove takes i out of the draw and returns the weight it had (0 if it was
// already out).
func (f *fenwick) remove(i int32) int64 {
	w := f.cur[i]
	if w != 0 {
		f.add(i, -w)
		f.cur[i] = 0
	}
	return w
}

// restore puts i back into the draw with its original weight.
func (f *fenwick) restore(i int32) {
	if f.cur[i] == 0 {
		f.cur[i] = f.base[i]
		f.add(i, f.base[i])
	}
}

// find returns the index whose cumulative weight interval holds x
// (0 ≤ x < total): the smallest i with sum(cur[0..i]) > x.
func (f *fenwick) find(x uint64) int32 {
	pos := 0
	rem := int64(x)
	for step := f.top; step > 0; step >>= 1 {
		if next := pos + step; next < len(f.tree) && f.tree[next] <= rem {
			pos = next
			rem -= f.tree[next]
		}
	}
	return int32(pos) // 1-based pos+1 is the answer, i.e. 0-based pos
}
