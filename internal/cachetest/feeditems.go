package cachetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"sparrow"
)

// item returns a feed item with id, written by an author derived from id.
func item(id sparrow.ID) sparrow.FeedItem {
	return sparrow.FeedItem{ID: id, Author: id%5 + 1}
}

// items returns item(id) for each id, in the order given.
func items(ids ...sparrow.ID) []sparrow.FeedItem {
	out := make([]sparrow.FeedItem, len(ids))
	for i, id := range ids {
		out[i] = item(id)
	}
	return out
}

// span returns the ids from, from+step, ... up to and including to.
func span(from, to, step sparrow.ID) []sparrow.ID {
	var out []sparrow.ID
	for id := from; id <= to; id += step {
		out = append(out, id)
	}
	return out
}

// newestFirst returns ids sorted from the largest down.
func newestFirst(ids []sparrow.ID) []sparrow.ID {
	out := slices.Clone(ids)
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

// shuffled returns a copy of s in a random order.
func shuffled[T any](s []T) []T {
	out := slices.Clone(s)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// idsOf returns the ids of items.
func idsOf(items []sparrow.FeedItem) []sparrow.ID {
	out := make([]sparrow.ID, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// wantItems fails t unless got equals want exactly (ids, authors, reblogs,
// order).
func wantItems(t *testing.T, what string, got, want []sparrow.FeedItem) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got  %v\n want %v", what, fmtItems(got), fmtItems(want))
	}
}

// wantIDs fails t unless the ids of got are want, in order.
func wantIDs(t *testing.T, what string, got []sparrow.FeedItem, want ...sparrow.ID) {
	t.Helper()
	if g := idsOf(got); !slices.Equal(g, want) {
		t.Fatalf("%s: got ids %v, want %v", what, g, want)
	}
}

func fmtItems(items []sparrow.FeedItem) string {
	s := "["
	for i, it := range items {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d/a%d", it.ID, it.Author)
		if it.Reblog != 0 {
			s += fmt.Sprintf("/r%d", it.Reblog)
		}
	}
	return s + "]"
}

// pageCase is one page read over a list holding the ids 10, 20, ..., 200,
// with the ids it must return.
type pageCase struct {
	p    sparrow.Page
	want []sparrow.ID
}

// pagingIDs are the ids of the list that pageCases read.
var pagingIDs = span(10, 200, 10)

// pageCases cover every bound alone and combined, limits, and MinID's upward
// reading (the oldest items above it, returned newest first).
var pageCases = []pageCase{
	{sparrow.Page{}, newestFirst(pagingIDs)}, // limit 0: DefaultLimit = 20 = all
	{sparrow.Page{Limit: 3}, []sparrow.ID{200, 190, 180}},
	{sparrow.Page{Limit: 1000}, newestFirst(pagingIDs)},
	{sparrow.Page{MaxID: 180, Limit: 3}, []sparrow.ID{170, 160, 150}},
	{sparrow.Page{MaxID: 185, Limit: 3}, []sparrow.ID{180, 170, 160}},
	{sparrow.Page{MaxID: 30, Limit: 5}, []sparrow.ID{20, 10}},
	{sparrow.Page{MaxID: 10, Limit: 5}, nil},
	{sparrow.Page{MaxID: 1 << 62, Limit: 2}, []sparrow.ID{200, 190}},
	{sparrow.Page{SinceID: 170, Limit: 40}, []sparrow.ID{200, 190, 180}},
	{sparrow.Page{SinceID: 170, Limit: 2}, []sparrow.ID{200, 190}},
	{sparrow.Page{SinceID: 165, Limit: 2}, []sparrow.ID{200, 190}},
	{sparrow.Page{SinceID: 200, Limit: 5}, nil},
	{sparrow.Page{MinID: 30, Limit: 3}, []sparrow.ID{60, 50, 40}},
	{sparrow.Page{MinID: 35, Limit: 2}, []sparrow.ID{50, 40}},
	{sparrow.Page{MinID: 190, Limit: 5}, []sparrow.ID{200}},
	{sparrow.Page{MinID: 200, Limit: 5}, nil},
	{sparrow.Page{MinID: 1, Limit: 2}, []sparrow.ID{20, 10}},
	{sparrow.Page{MinID: 30, MaxID: 60, Limit: 10}, []sparrow.ID{50, 40}},
	{sparrow.Page{MinID: 30, MaxID: 80, Limit: 2}, []sparrow.ID{50, 40}},
	{sparrow.Page{SinceID: 30, MaxID: 80, Limit: 2}, []sparrow.ID{70, 60}},
	{sparrow.Page{SinceID: 30, MaxID: 60, Limit: 10}, []sparrow.ID{50, 40}},
	{sparrow.Page{SinceID: 100, MinID: 30, Limit: 2}, []sparrow.ID{120, 110}}, // lower bound: the larger
	{sparrow.Page{SinceID: 30, MinID: 100, Limit: 2}, []sparrow.ID{120, 110}},
	{sparrow.Page{SinceID: 100, MaxID: 110, Limit: 5}, nil},
	{sparrow.Page{MaxID: 100, SinceID: 200, Limit: 5}, nil},
}

// checkPaging runs pageCases through read, which reads a list holding
// pagingIDs.
func checkPaging(t *testing.T, read func(p sparrow.Page) []sparrow.FeedItem) {
	t.Helper()
	for _, c := range pageCases {
		wantIDs(t, fmt.Sprintf("Read(%+v)", c.p), read(c.p), c.want...)
	}
}
