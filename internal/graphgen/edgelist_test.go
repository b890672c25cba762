package graphgen

import (
	"strings"
	"testing"

	"sparrow"
)

func TestEdgeListRoundTrip(t *testing.T) {
	var b []byte
	b = AppendEdge(b, 1, 2)
	b = AppendEdge(b, 9223372036854775807, 256)
	in := "# header\n" + string(b) + "\r\n  3,4 \r\n"
	var got [][2]sparrow.ID
	err := ReadEdgeList(strings.NewReader(in), func(from, to sparrow.ID) error {
		got = append(got, [2]sparrow.ID{from, to})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]sparrow.ID{{1, 2}, {9223372036854775807, 256}, {3, 4}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestEdgeListErrors(t *testing.T) {
	for _, in := range []string{"1;2\n", "1,\n", "1,2,3\n", "-1,2\n", "0,2\n", "1,9223372036854775808\n", "x,1\n"} {
		err := ReadEdgeList(strings.NewReader("5,6\n"+in), func(_, _ sparrow.ID) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: err = %v, want one naming line 2", in, err)
		}
	}
}

func TestIDList(t *testing.T) {
	var got []sparrow.ID
	err := ReadIDList(strings.NewReader("7\n\n8\n"), func(id sparrow.ID) error { got = append(got, id); return nil })
	if err != nil || len(got) != 2 || got[0] != 7 || got[1] != 8 {
		t.Fatalf("%v %v", got, err)
	}
	if err := ReadIDList(strings.NewReader("7,8\n"), func(sparrow.ID) error { return nil }); err == nil {
		t.Fatal("accepted a pair as an id")
	}
}
