package redis

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"sparrow"
)

// Feed lists (inboxes and recent lists) are sorted sets whose members all
// have score 0, so Redis orders them by member bytes, and each member encodes
// an item so that this order is id order:
//
//	<id as 19 decimal digits, zero-padded>:<author>:<reblog or 0>
//
// A 63-bit id has at most 19 digits, and padding makes byte order numeric
// order; float scores would not do (a float64 cannot tell apart ids near 2^62
// that differ in their low bits). Pages are lex ranges between padded ids.

// idWidth is the number of digits of a padded id.
const idWidth = 19

// padID returns id as idWidth zero-padded decimal digits (ids are not
// negative; a negative id is padded as 0).
func padID(id sparrow.ID) string {
	var b [idWidth]byte
	return string(appendPadded(b[:0], id))
}

func appendPadded(b []byte, id sparrow.ID) []byte {
	id = max(id, 0)
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(id), 10)
	for range idWidth - len(d) {
		b = append(b, '0')
	}
	return append(b, d...)
}

// encodeItem returns the member of it.
func encodeItem(it sparrow.FeedItem) string {
	b := make([]byte, 0, idWidth+42)
	b = appendPadded(b, it.ID)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(it.Author), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(it.Reblog), 10)
	return string(b)
}

// decodeItem parses a member made by encodeItem.
func decodeItem(m string) (sparrow.FeedItem, error) {
	id, rest, ok1 := strings.Cut(m, ":")
	author, reblog, ok2 := strings.Cut(rest, ":")
	i, err1 := strconv.ParseInt(id, 10, 64)
	a, err2 := strconv.ParseInt(author, 10, 64)
	r, err3 := strconv.ParseInt(reblog, 10, 64)
	if !ok1 || !ok2 || len(id) != idWidth || err1 != nil || err2 != nil || err3 != nil {
		return sparrow.FeedItem{}, sparrow.Errorf(sparrow.EInternal, "redis: malformed feed member %q", m)
	}
	return sparrow.FeedItem{ID: sparrow.ID(i), Author: sparrow.ID(a), Reblog: sparrow.ID(r)}, nil
}

// decodeItems parses members, reversing them if they are oldest first.
func decodeItems(members []string, oldestFirst bool) ([]sparrow.FeedItem, error) {
	if len(members) == 0 {
		return nil, nil
	}
	out := make([]sparrow.FeedItem, len(members))
	for i, m := range members {
		it, err := decodeItem(m)
		if err != nil {
			return nil, err
		}
		out[i] = it
	}
	if oldestFirst {
		slices.Reverse(out)
	}
	return out, nil
}

// parseID parses a stored id (padded or not).
func parseID(s string) (sparrow.ID, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, sparrow.Errorf(sparrow.EInternal, "redis: malformed stored id %q", s)
	}
	return sparrow.ID(n), nil
}

// parseMillis parses a stored Unix time in milliseconds as a UTC time.
func parseMillis(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, sparrow.Errorf(sparrow.EInternal, "redis: malformed stored time %q", s)
	}
	return time.UnixMilli(n).UTC(), nil
}

// lexPage returns the lex bounds and count of page p: max excludes ids ≥
// MaxID, min excludes ids ≤ the lower bound (a member "<pad(id)>:..." sorts
// after "<pad(id)>" and before "<pad(id)>;", since ':' < ';'). empty is true
// when no id can match.
func lexPage(p sparrow.Page) (min, max string, limit int64, empty bool) {
	min, max = "-", "+"
	if p.MaxID < 0 {
		return "", "", 0, true
	}
	if p.MaxID > 0 {
		max = "(" + padID(p.MaxID)
	}
	if lo := p.Lower(); lo > 0 {
		min = "(" + padID(lo) + ";"
	}
	limit = int64(p.Limit)
	if limit <= 0 {
		limit = sparrow.DefaultLimit
	}
	return min, max, limit, false
}

// prepareItems returns the members of the items a list keeps
// (sparrow.KeepNewest), encoded, and the floor raised to the newest id cut.
func prepareItems(items []sparrow.FeedItem, floor sparrow.ID, limit int) ([]string, sparrow.ID) {
	its, floor := sparrow.KeepNewest(items, floor, limit)
	members := make([]string, len(its))
	for i, it := range its {
		members[i] = encodeItem(it)
	}
	return members, floor
}
