package reports

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"codeberg.org/go-pdf/fpdf"
	"github.com/unlearnaudit/unlearnaudit/audit"
)

// The report's small plots — a game's score histogram and ROC curve, a trace against the
// number of requests — are built once as a chart, in the 360 × 220 pixel space of the HTML
// page (y down), from numbers only, and drawn by two backends: inline SVG for the HTML
// page, with every label escaped, and vector lines and text on the PDF page.

const (
	plotW, plotH = 360.0, 220.0
	padL, padR   = 46.0, 12.0
	padT, padB   = 22.0, 36.0
)

// A chart is one plot: a title, a frame, lines and labels in plot pixels.
type chart struct {
	title string
	lines []chartLine
	dots  []chartDot
	texts []chartText
}

// chartDot is a filled circle: one record of a per-record plot, or a marked point.
type chartDot struct {
	x, y, r float64
	color   string
}

type chartLine struct {
	pts    [][2]float64
	color  string // #rrggbb
	width  float64
	dashed []float64 // on, off lengths; nil for solid
}

type chartText struct {
	x, y   float64
	size   float64
	anchor string // start, middle or end
	color  string // "" for black
	text   string
	// vertical turns the text a quarter anticlockwise about (x, y), reading upward: an
	// axis label on the left.
	vertical bool
}

func (c *chart) line(color string, width float64, dashed []float64, pts ...[2]float64) {
	c.lines = append(c.lines, chartLine{pts: pts, color: color, width: width, dashed: dashed})
}

func (c *chart) text(x, y, size float64, anchor, color, text string) {
	c.texts = append(c.texts, chartText{x: x, y: y, size: size, anchor: anchor, color: color, text: text})
}

// yLabel writes an axis label up the left edge, centred on the frame.
func (c *chart) yLabel(text string) {
	c.texts = append(c.texts, chartText{x: 10, y: padT + frameH/2, size: 9, anchor: "middle", text: text, vertical: true})
}

func (c *chart) dot(x, y, r float64, color string) {
	c.dots = append(c.dots, chartDot{x: x, y: y, r: r, color: color})
}

// frameW and frameH are the plotting area's size inside the padding.
const frameW, frameH = plotW - padL - padR, plotH - padT - padB

// svg draws the chart as inline SVG. The full title is the label and the tooltip; the
// visible one is cut to the frame.
func (c *chart) svg() template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`,
		plotW, plotH, plotW, plotH, esc(c.title))
	fmt.Fprintf(&b, `<title>%s</title><text x="4" y="14" font-size="11" font-family="sans-serif">%s</text>`, esc(c.title), esc(shorten(c.title, 58)))
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, padL, padT, frameW, frameH)
	for _, l := range c.lines {
		pts := make([]string, len(l.pts))
		for i, p := range l.pts {
			pts[i] = fmt.Sprintf("%.1f,%.1f", p[0], p[1])
		}
		dash := ""
		if l.dashed != nil {
			dash = fmt.Sprintf(` stroke-dasharray="%g %g"`, l.dashed[0], l.dashed[1])
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%g"%s/>`, strings.Join(pts, " "), l.color, l.width, dash)
	}
	for _, d := range c.dots {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%g" fill="%s"/>`, d.x, d.y, d.r, d.color)
	}
	for _, t := range c.texts {
		attrs := ""
		if t.anchor != "start" {
			attrs += fmt.Sprintf(` text-anchor="%s"`, t.anchor)
		}
		if t.color != "" {
			attrs += fmt.Sprintf(` fill="%s"`, t.color)
		}
		if t.vertical {
			attrs += fmt.Sprintf(` transform="rotate(-90 %.1f %.1f)"`, t.x, t.y)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="%g" font-family="sans-serif"%s>%s</text>`, t.x, t.y, t.size, attrs, esc(t.text))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// pdf draws the chart on the current page with its top-left corner at (x, y) mm, width w
// mm (the height keeps the plot's proportions); the title is cut to the frame as in SVG.
func (c *chart) pdf(p *fpdf.Fpdf, x, y, w float64) {
	k := w / plotW // mm per plot pixel
	const ptPerMM = 72 / 25.4
	pt := func(px, py float64) (float64, float64) { return x + px*k, y + py*k }
	rgb := func(hex string) (int, int, int) {
		var r, g, b int
		if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b); err != nil {
			return 0, 0, 0
		}
		return r, g, b
	}
	text := func(t chartText) {
		p.SetFont("dejavu", "", t.size*k*ptPerMM)
		p.SetTextColor(rgb(t.color))
		s := pdfText(t.text)
		x0, y0 := pt(t.x, t.y)
		tx := x0
		switch t.anchor {
		case "middle":
			tx -= p.GetStringWidth(s) / 2
		case "end":
			tx -= p.GetStringWidth(s)
		}
		if t.vertical {
			p.TransformBegin()
			p.TransformRotate(90, x0, y0)
			p.Text(tx, y0, s)
			p.TransformEnd()
			return
		}
		p.Text(tx, y0, s)
	}
	text(chartText{x: 4, y: 14, size: 11, anchor: "start", text: shorten(c.title, 58)})
	p.SetDrawColor(153, 153, 153)
	p.SetLineWidth(0.2)
	fx, fy := pt(padL, padT)
	p.Rect(fx, fy, frameW*k, frameH*k, "D")
	for _, l := range c.lines {
		p.SetDrawColor(rgb(l.color))
		p.SetLineWidth(l.width * k)
		if l.dashed != nil {
			p.SetDashPattern([]float64{l.dashed[0] * k, l.dashed[1] * k}, 0)
		}
		for i := 1; i < len(l.pts); i++ {
			x0, y0 := pt(l.pts[i-1][0], l.pts[i-1][1])
			x1, y1 := pt(l.pts[i][0], l.pts[i][1])
			p.Line(x0, y0, x1, y1)
		}
		p.SetDashPattern(nil, 0)
	}
	for _, d := range c.dots {
		p.SetFillColor(rgb(d.color))
		dx, dy := pt(d.x, d.y)
		p.Circle(dx, dy, d.r*k, "F")
	}
	if len(c.dots) > 0 {
		p.SetFillColor(0, 0, 0) // fpdf's default, as the other charts leave it
	}
	for _, t := range c.texts {
		text(t)
	}
	p.SetTextColor(0, 0, 0)
	p.SetDrawColor(0, 0, 0)
}

// histogramChart draws both sides' counts as step outlines on the shared bins.
func histogramChart(s *audit.ScoreSummary) *chart {
	c := &chart{title: "histogram: " + s.Name}
	top := 1
	for i := range s.Unlearned {
		top = max(top, s.Unlearned[i], s.Retrained[i])
	}
	n := len(s.Unlearned)
	x := func(i int) float64 { return padL + frameW*float64(i)/float64(n) }
	y := func(v int) float64 { return plotH - padB - frameH*float64(v)/float64(top) }
	step := func(counts []int, color string, dashed []float64) {
		var pts [][2]float64
		for i, v := range counts {
			pts = append(pts, [2]float64{x(i), y(v)}, [2]float64{x(i + 1), y(v)})
		}
		c.line(color, 1.5, dashed, pts...)
	}
	step(s.Unlearned, "#b2182b", nil)
	step(s.Retrained, "#2166ac", []float64{4, 2})
	c.text(padL, plotH-padB+14, 10, "start", "", num(Number(s.Edges[0])))
	c.text(plotW-padR, plotH-padB+14, 10, "end", "", num(Number(s.Edges[len(s.Edges)-1])))
	c.text(4, padT+8, 10, "start", "", fmt.Sprint(top))
	c.text(padL, plotH-6, 10, "start", "#b2182b", "— unlearned")
	c.text(padL+90, plotH-6, 10, "start", "#2166ac", "- - retrained")
	return c
}

// rocChart draws the ROC curve on log–log axes (rates from 10⁻³, where a small-δ attack
// lives) with the chance diagonal.
func rocChart(s *audit.ScoreSummary) *chart {
	c, _, _ := logROC("ROC (log–log): "+s.Name, 1e-3, s.ROC)
	c.text((padL+plotW-padR)/2, plotH-8, 10, "middle", "", "false-positive rate (retrained called unlearned)")
	return c
}

// logROC is a ROC curve on log–log axes from floor to 1 with the chance diagonal and a
// tick at every power of ten (and at the floor), and the chart's axis maps.
func logROC(title string, floor float64, roc []audit.ROCPoint) (c *chart, x, y func(float64) float64) {
	c = &chart{title: title}
	lf := math.Log10(floor)
	pos := func(r, span float64) float64 { return (math.Log10(math.Max(r, floor)) - lf) / -lf * span }
	x = func(f float64) float64 { return padL + pos(f, frameW) }
	y = func(t float64) float64 { return plotH - padB - pos(t, frameH) }
	c.line("#bbbbbb", 1, []float64{3, 3}, [2]float64{x(floor), y(floor)}, [2]float64{x(1), y(1)})
	var pts [][2]float64
	for _, p := range roc {
		if p.FPR > 0 || p.TPR > 0 {
			pts = append(pts, [2]float64{x(p.FPR), y(p.TPR)})
		}
	}
	if len(pts) > 0 {
		c.line("#1b7837", 1.5, nil, pts...)
	}
	ticks := []float64{floor}
	for d := math.Ceil(lf); d <= 0; d++ {
		if v := math.Pow(10, d); v/floor >= 2 || v == floor {
			ticks = append(ticks, v)
		}
	}
	for _, t := range slices.Compact(ticks) {
		c.text(x(t), plotH-padB+12, 9, "middle", "", rateLabel(t))
		c.text(padL-3, y(t)+3, 9, "end", "", rateLabel(t))
	}
	return c, x, y
}

// traceChart draws a trace against the number of requests: the measured values solid, the
// bound dashed. The y axis is logarithmic when the values span more than a decade (a
// distance of 1e-6 beside a radius of 1e-2 would sit on the axis otherwise), with zeros
// drawn on the axis floor; a single request is drawn as a short tick.
func traceChart(t Trace) *chart {
	c := &chart{title: t.Name}
	lo, hi := math.Inf(1), 0.0
	for _, vs := range [][]Number{t.Values, t.Bound} {
		for _, v := range vs {
			if f := float64(v); f > 0 && !math.IsInf(f, 0) {
				lo, hi = math.Min(lo, f), math.Max(hi, f)
			}
		}
	}
	if hi == 0 {
		lo, hi = 0, 1
	}
	logY := hi/lo > 10
	var ymap func(float64) float64
	if logY {
		llo, lhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		ymap = func(v float64) float64 {
			f := (math.Log10(math.Max(v, math.Pow(10, llo))) - llo) / (lhi - llo)
			return plotH - padB - frameH*math.Min(f, 1)
		}
		c.text(padL-3, plotH-padB+3, 9, "end", "", fmt.Sprintf("1e%g", llo))
		c.text(padL-3, padT+3, 9, "end", "", fmt.Sprintf("1e%g", lhi))
	} else {
		top := hi * 1.1
		ymap = func(v float64) float64 { return plotH - padB - frameH*math.Min(math.Max(v, 0)/top, 1) }
		c.text(padL-3, plotH-padB+3, 9, "end", "", "0")
		c.text(padL-3, padT+3, 9, "end", "", num(Number(top)))
	}
	first, last := float64(t.Requests[0]), float64(t.Requests[len(t.Requests)-1])
	if first == last {
		first, last = first-0.5, last+0.5
	}
	xmap := func(r float64) float64 { return padL + frameW*(r-first)/(last-first) }
	series := func(vs []Number, color string, dashed []float64) {
		var pts [][2]float64
		for i, v := range vs {
			f := float64(v)
			if math.IsNaN(f) {
				continue
			}
			pts = append(pts, [2]float64{xmap(float64(t.Requests[i])), ymap(f)})
		}
		if len(pts) == 1 {
			x, y := pts[0][0], pts[0][1]
			pts = [][2]float64{{math.Max(padL, x-frameW/4), y}, {math.Min(plotW-padR, x+frameW/4), y}}
		}
		if len(pts) > 0 {
			c.line(color, 1.5, dashed, pts...)
		}
	}
	series(t.Bound, "#2166ac", []float64{4, 2})
	series(t.Values, "#b2182b", nil)
	c.text(padL, plotH-padB+12, 9, "start", "", fmt.Sprint(t.Requests[0]))
	c.text(plotW-padR, plotH-padB+12, 9, "end", "", fmt.Sprint(t.Requests[len(t.Requests)-1]))
	c.text((padL+plotW-padR)/2, plotH-padB+12, 9, "middle", "", "request")
	c.text(padL, plotH-6, 10, "start", "#b2182b", "— measured")
	c.text(padL+80, plotH-6, 10, "start", "#2166ac", "- - "+shorten(t.BoundName, 38))
	return c
}

// shorten cuts s to at most n runes, marking the cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// membershipROCChart draws a membership measurement's ROC on log–log axes that start at
// 1/Holdout, the smallest nonzero false-positive rate the held-out records can show (a
// fixed 10⁻³ floor would draw 100 held-out records' curve in a corner it cannot reach,
// or hide what 10⁵ show). Points at FPR 0 sit on the left edge, true-positive rates below
// the floor on the bottom edge; the reported TPRs at FPR 0.1 % and 1 % are marked.
func membershipROCChart(m *Membership) *chart {
	c, x, y := logROC("ROC (log–log): deleted against held-out records", 1/float64(max(m.Holdout, 2)), m.ROC)
	for _, t := range m.TPR {
		c.dot(x(float64(t.FP)/float64(m.Holdout)), y(float64(t.TPR)), 3, "#b2182b")
	}
	c.text((padL+plotW-padR)/2, plotH-padB+24, 9, "middle", "", fmt.Sprintf("false-positive rate (held-out flagged), from 1/%d", m.Holdout))
	c.yLabel("true-positive rate (deleted flagged)")
	c.text(plotW-padR-4, plotH-padB-6, 9, "end", "#b2182b", "● TPR at FPR "+levelsLabel(m.TPR))
	return c
}

// exposureChart is the per-record vulnerability plot: every deleted record a dot, its
// score against the order of the records (sorted by their percentile among the held-out
// scores), with the holdout's 95th and 99th percentiles dashed. A model that forgot the
// records leaves about 5 % and 1 % of the dots above the lines; a record far above them
// is one it still treats as a member. Past maxDots records an even selection by rank is
// drawn, the first and the last kept.
func exposureChart(m *Membership) *chart {
	c := &chart{title: "per-record exposure: deleted records against the holdout"}
	const maxDots = 1000
	recs := slices.Clone(m.Records)
	slices.Reverse(recs) // least exposed first: the dots rise left to right
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range recs {
		lo, hi = math.Min(lo, float64(r.Score)), math.Max(hi, float64(r.Score))
	}
	var marks []Quantile
	for _, q := range m.HoldoutQuantiles {
		if q.P == 0.95 || q.P == 0.99 {
			marks = append(marks, q)
			lo, hi = math.Min(lo, float64(q.Value)), math.Max(hi, float64(q.Value))
		}
	}
	if !(hi > lo) { // one score, or none: any scale shows it
		lo, hi = lo-0.5, lo+0.5
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	span := hi - lo
	lo, hi = lo-0.05*span, hi+0.05*span
	y := func(v float64) float64 { return plotH - padB - frameH*(v-lo)/(hi-lo) }
	n := len(recs)
	x := func(i int) float64 {
		if n == 1 {
			return padL + frameW/2
		}
		return padL + 4 + (frameW-8)*float64(i)/float64(n-1)
	}
	// the 95th percentile's label under its line on the left, the 99th's over its line on
	// the right, so that two close lines keep both labels legible
	for k, q := range marks {
		color, lx, ly, anchor := "#e08214", padL+3, y(float64(q.Value))+9, "start"
		if k > 0 {
			color, lx, ly, anchor = "#b2182b", plotW-padR-3, y(float64(q.Value))-3, "end"
		}
		c.line(color, 1, []float64{4, 2}, [2]float64{padL, y(float64(q.Value))}, [2]float64{plotW - padR, y(float64(q.Value))})
		c.text(lx, ly, 8, anchor, color, fmt.Sprintf("holdout %sth percentile", num(100*q.P)))
	}
	r := 2.0
	if n > 200 {
		r = 1.2
	}
	step := 1.0
	if n > maxDots {
		step = float64(n-1) / float64(maxDots-1)
	}
	for j := 0.0; int(math.Round(j)) < n; j += step {
		i := int(math.Round(j))
		c.dot(x(i), y(float64(recs[i].Score)), r, "#2166ac")
	}
	c.text(padL-3, plotH-padB+3, 9, "end", "", strconv.FormatFloat(lo, 'g', 3, 64))
	c.text(padL-3, padT+3, 9, "end", "", strconv.FormatFloat(hi, 'g', 3, 64))
	c.text(padL, plotH-padB+12, 9, "start", "", "1")
	c.text(plotW-padR, plotH-padB+12, 9, "end", "", fmt.Sprint(n))
	c.text((padL+plotW-padR)/2, plotH-padB+24, 9, "middle", "", "deleted records, by percentile among held-out scores")
	c.yLabel("score (higher = more member-like)")
	return c
}

// rateLabel writes a rate for an axis: 0.01, 0.004, 1e-4, 3.3e-5.
func rateLabel(r float64) string {
	if r >= 1e-3 {
		return strconv.FormatFloat(r, 'g', 2, 64)
	}
	e := math.Floor(math.Log10(r))
	mant := r / math.Pow(10, e)
	if math.Abs(mant-math.Round(mant)) < 1e-9 {
		return fmt.Sprintf("%ge%g", math.Round(mant), e)
	}
	return fmt.Sprintf("%.2ge%g", mant, e)
}

// levelsLabel lists the reported FPR levels in per cent: "0.1 %, 1 %".
func levelsLabel(ts []MembershipTPR) string {
	var out []string
	for _, t := range ts {
		out = append(out, num(100*t.FPR)+" %")
	}
	return strings.Join(out, ", ")
}
