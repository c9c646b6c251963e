package reports

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// Inline SVG plots of a game's scores for the HTML report: built from numbers only, with
// every label escaped, so they are safe to insert as markup.

const (
	plotW, plotH = 360.0, 220.0
	padL, padR   = 46.0, 12.0
	padT, padB   = 22.0, 36.0
)

func svgOpen(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`,
		plotW, plotH, plotW, plotH, template.HTMLEscapeString(title))
	// the full title is the label and the tooltip; the visible one is cut to the frame
	fmt.Fprintf(b, `<title>%s</title><text x="4" y="14" font-size="11" font-family="sans-serif">%s</text>`,
		template.HTMLEscapeString(title), template.HTMLEscapeString(shorten(title, 58)))
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, padL, padT, plotW-padL-padR, plotH-padT-padB)
}

// histogramSVG draws both sides' counts as step outlines on the shared bins.
func histogramSVG(s *audit.ScoreSummary) template.HTML {
	var b strings.Builder
	svgOpen(&b, "histogram: "+s.Name)
	top := 1
	for i := range s.Unlearned {
		top = max(top, s.Unlearned[i], s.Retrained[i])
	}
	n := len(s.Unlearned)
	x := func(i int) float64 { return padL + (plotW-padL-padR)*float64(i)/float64(n) }
	y := func(c int) float64 { return plotH - padB - (plotH-padT-padB)*float64(c)/float64(top) }
	step := func(counts []int, color, dash string) {
		var pts []string
		for i, c := range counts {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(i), y(c), x(i+1), y(c)))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"%s/>`, strings.Join(pts, " "), color, dash)
	}
	step(s.Unlearned, "#b2182b", "")
	step(s.Retrained, "#2166ac", ` stroke-dasharray="4 2"`)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" font-family="sans-serif">%s</text>`, padL, plotH-padB+14, num(Number(s.Edges[0])))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" font-family="sans-serif" text-anchor="end">%s</text>`, plotW-padR, plotH-padB+14, num(Number(s.Edges[len(s.Edges)-1])))
	fmt.Fprintf(&b, `<text x="4" y="%g" font-size="10" font-family="sans-serif">%d</text>`, padT+8, top)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" font-family="sans-serif" fill="#b2182b">— unlearned</text><text x="%g" y="%g" font-size="10" font-family="sans-serif" fill="#2166ac">- - retrained</text>`,
		padL, plotH-6, padL+90, plotH-6)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// rocSVG draws the ROC curve on log–log axes (rates from 10⁻³, where a small-δ attack
// lives) with the chance diagonal.
func rocSVG(s *audit.ScoreSummary) template.HTML {
	var b strings.Builder
	svgOpen(&b, "ROC (log–log): "+s.Name)
	const floor = 1e-3
	pos := func(r float64, span float64) float64 {
		return (math.Log10(math.Max(r, floor)) - math.Log10(floor)) / -math.Log10(floor) * span
	}
	x := func(f float64) float64 { return padL + pos(f, plotW-padL-padR) }
	y := func(t float64) float64 { return plotH - padB - pos(t, plotH-padT-padB) }
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbb" stroke-dasharray="3 3"/>`, x(floor), y(floor), x(1), y(1))
	var pts []string
	for _, p := range s.ROC {
		if p.FPR > 0 || p.TPR > 0 {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.FPR), y(p.TPR)))
		}
	}
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#1b7837" stroke-width="1.5"/>`, strings.Join(pts, " "))
	for _, t := range []float64{1e-3, 1e-2, 1e-1, 1} {
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" font-size="9" font-family="sans-serif" text-anchor="middle">%g</text>`, x(t), plotH-padB+12, t)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" font-size="9" font-family="sans-serif" text-anchor="end">%g</text>`, padL-3, y(t)+3, t)
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" font-family="sans-serif" text-anchor="middle">false-positive rate (retrained called unlearned)</text>`, (padL+plotW-padR)/2, plotH-8)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// shorten cuts s to at most n runes, marking the cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
