package graphgen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"sparrow"
)

// The edge list format is one "follower_id,followee_id" line per follow, in
// decimal; an id list is one decimal id per line. Readers skip blank lines
// and lines that start with '#', and accept CRLF line ends.

// AppendEdge appends the line of one follow to b.
func AppendEdge(b []byte, from, to sparrow.ID) []byte {
	b = strconv.AppendInt(b, int64(from), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(to), 10)
	return append(b, '\n')
}

// ReadEdgeList calls emit for every follow of an edge list, in order, and
// stops at emit's first error. A malformed line is an error naming its
// line number.
func ReadEdgeList(r io.Reader, emit func(from, to sparrow.ID) error) error {
	return readLines(r, func(n int, line []byte) error {
		a, b, ok := bytes.Cut(line, []byte{','})
		from, err1 := parseID(a)
		to, err2 := parseID(b)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("line %d: want follower_id,followee_id, got %q", n, line)
		}
		return emit(from, to)
	})
}

// ReadIDList calls emit for every id of an id list.
func ReadIDList(r io.Reader, emit func(sparrow.ID) error) error {
	return readLines(r, func(n int, line []byte) error {
		id, err := parseID(line)
		if err != nil {
			return fmt.Errorf("line %d: want an id, got %q", n, line)
		}
		return emit(id)
	})
}

func readLines(r io.Reader, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	return sc.Err()
}

// parseID parses a positive decimal id without allocating.
func parseID(b []byte) (sparrow.ID, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || len(b) > 19 {
		return 0, strconv.ErrSyntax
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, strconv.ErrSyntax
		}
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return 0, strconv.ErrRange
		}
		n = n*10 + d
	}
	if n <= 0 {
		return 0, strconv.ErrRange
	}
	return sparrow.ID(n), nil
}
