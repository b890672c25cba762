package inmem

import (
	"sync"

	"sparrow"
)

// numStripes is the number of independently locked parts of a striped map.
const numStripes = 256

// stripe is one lock and the part of a striped map it guards, padded to a
// cache line so that neighbouring stripes' locks do not share one.
type stripe[V any] struct {
	mu sync.RWMutex
	m  map[sparrow.ID]*V
	_  [64 - 24 - 8]byte
}

// striped maps ids to *V under numStripes locks, so that operations on
// different ids rarely contend.
type striped[V any] struct {
	s [numStripes]stripe[V]
}

func newStriped[V any]() *striped[V] {
	st := &striped[V]{}
	for i := range st.s {
		st.s[i].m = make(map[sparrow.ID]*V)
	}
	return st
}

// of returns the stripe of id. Ids are mixed (Fibonacci hashing) before
// taking the top bits, so that any regular pattern in them (the shard gene in
// the low bits, sequential test ids) still spreads evenly.
func (st *striped[V]) of(id sparrow.ID) *stripe[V] {
	return &st.s[(uint64(id)*0x9E3779B97F4A7C15)>>56]
}
