package bench

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// svgElements parses doc as XML and counts its elements by name.
func svgElements(t *testing.T, doc string) map[string]int {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	n := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
		}
	}
}

func TestLineChartSVG(t *testing.T) {
	c := LineChart{Title: "Home <latency> & co", XLabel: "followings", YLabel: "ms", LogX: true, LogY: true, Series: []Series{
		{Name: "hybrid p99", Points: []Point{{1000, 3}, {10, 1}, {100, 2}}},
		{Name: "pull p99", Dashed: true, Points: []Point{{10, 2}, {100, 9}, {1000, 80}, {0, 5}}}, // x=0 is left out on a log axis
		{Name: "empty"},
	}}
	doc := c.SVG()
	els := svgElements(t, doc)
	if els["svg"] != 1 || els["polyline"] != 2 || els["circle"] != 6 {
		t.Errorf("elements %v: want 1 svg, 2 polylines, 6 points", els)
	}
	for _, want := range []string{"hybrid p99", "pull p99", "&lt;latency&gt; &amp; co", ">1k<", ">100<", "stroke-dasharray"} {
		if !strings.Contains(doc, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	// the x of 10 must be left of 100, and 100 left of 1000 (sorted, log scale evenly spaced)
	ax := bounds([]float64{10, 100, 1000}, true)
	a, b, cc := ax.t(10), ax.t(100), ax.t(1000)
	if !(a < b && b < cc) || abs(b-a-(cc-b)) > 1e-9 {
		t.Errorf("log axis positions %v %v %v: want increasing and evenly spaced", a, b, cc)
	}
	lin := axis{min: 0, max: 7.3}
	if ticks := lin.ticks(); len(ticks) < 3 || ticks[0] != 0 || ticks[len(ticks)-1] > 7.3 {
		t.Errorf("linear ticks %v", ticks)
	}
	if empty := (LineChart{Title: "none"}).SVG(); svgElements(t, empty)["svg"] != 1 {
		t.Error("an empty chart is not an SVG document")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
