package bench

import (
	"fmt"
	"strings"
)

// StackSVG renders charts one above the other in one standalone SVG
// document: each chart's own document (LineChart.SVG) nested at its offset.
func StackSVG(charts ...LineChart) string {
	var b strings.Builder
	h := plotH * len(charts)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", plotW, h, plotW, h)
	for i, c := range charts {
		b.WriteString(strings.Replace(c.SVG(), "<svg ", fmt.Sprintf(`<svg x="0" y="%d" `, i*plotH), 1))
	}
	b.WriteString("</svg>\n")
	return b.String()
}
