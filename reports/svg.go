package reports

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"codeberg.org/go-pdf/fpdf"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// The report's small plots — a game's score histogram and ROC curve, a trace against the
// number of requests — are built once as a chart, in the 360 × 236 pixel space of the HTML
// page (y down), from numbers only, and drawn by two backends: inline SVG for the HTML
// page, with every label escaped, and vector lines and text on the PDF page. A title too
// long for one line is wrapped, never cut: the chart grows by a line's height for each
// line past the first, everything below the title moved down by it.

const (
	plotW, plotH = 360.0, 236.0
	padL, padR   = 46.0, 12.0
	padT, padB   = 22.0, 52.0
	// the rows under the frame: tick labels, the axis label, then the legend
	tickY, axisY, legendY = plotH - padB + 12, plotH - padB + 26, plotH - 7
	// titleChars is how many characters of an 11 px title fit on a line; titleLead its
	// line height
	titleChars, titleLead = 58, 13.0
)

// A chart is one plot: a title, a frame, lines and labels in plot pixels.
type chart struct {
	title string
	lines []chartLine
	ticks []chartLine // the axes' tick marks, outside the frame
	dots  []chartDot
	texts []chartText
}

// titleLines is the title wrapped at spaces to titleChars per line (a longer word split).
func (c *chart) titleLines() []string { return Wrap(c.title, titleChars) }

// offset is how far a wrapped title moves the plot down; height the chart's whole height.
func (c *chart) offset() float64 { return titleLead * float64(len(c.titleLines())-1) }
func (c *chart) height() float64 { return plotH + c.offset() }

// Wrap breaks s into lines of at most n runes at spaces, splitting a word longer than a
// line; every rune of s but the spaces where it breaks is kept, in order. The charts'
// titles and the command line's help texts are wrapped by it.
func Wrap(s string, n int) []string {
	var lines []string
	var cur []rune
	for _, w := range strings.Split(s, " ") {
		r := []rune(w)
		if len(cur) > 0 && len(cur)+1+len(r) <= n {
			cur = append(append(cur, ' '), r...)
			continue
		}
		if len(cur) > 0 {
			lines = append(lines, string(cur))
		}
		for len(r) > n {
			lines = append(lines, string(r[:n]))
			r = r[n:]
		}
		cur = r
	}
	return append(lines, string(cur))
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

// xLabel writes an axis label under the tick labels, centred on the frame.
func (c *chart) xLabel(text string) {
	c.text((padL+plotW-padR)/2, axisY, 9, "middle", "", text)
}

// xTick marks v on the x axis at x with its label; yTick on the y axis at y.
func (c *chart) xTick(x float64, label string) {
	c.ticks = append(c.ticks, chartLine{pts: [][2]float64{{x, plotH - padB}, {x, plotH - padB + 3}}, color: "#999999", width: 1})
	c.text(x, tickY, 9, "middle", "", label)
}

func (c *chart) yTick(y float64, label string) {
	c.ticks = append(c.ticks, chartLine{pts: [][2]float64{{padL - 3, y}, {padL, y}}, color: "#999999", width: 1})
	c.text(padL-5, y+3, 9, "end", "", label)
}

func (c *chart) dot(x, y, r float64, color string) {
	c.dots = append(c.dots, chartDot{x: x, y: y, r: r, color: color})
}

// frameW and frameH are the plotting area's size inside the padding.
const frameW, frameH = plotW - padL - padR, plotH - padT - padB

// svg draws the chart as inline SVG. The full title is the label and the tooltip, and
// shows wrapped onto as many lines as it needs.
func (c *chart) svg() template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	off, h := c.offset(), c.height()
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`,
		plotW, h, plotW, h, esc(c.title))
	fmt.Fprintf(&b, `<title>%s</title>`, esc(c.title))
	for i, l := range c.titleLines() {
		fmt.Fprintf(&b, `<text x="4" y="%g" font-size="11" font-family="sans-serif">%s</text>`, 14+titleLead*float64(i), esc(l))
	}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, padL, padT+off, frameW, frameH)
	// tick marks are lines, not curves: a reader (or a test) finds the data in polylines
	for _, l := range c.ticks {
		a, z := l.pts[0], l.pts[len(l.pts)-1]
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%g"/>`, a[0], a[1]+off, z[0], z[1]+off, l.color, l.width)
	}
	for _, l := range c.lines {
		pts := make([]string, len(l.pts))
		for i, p := range l.pts {
			pts[i] = fmt.Sprintf("%.1f,%.1f", p[0], p[1]+off)
		}
		dash := ""
		if l.dashed != nil {
			dash = fmt.Sprintf(` stroke-dasharray="%g %g"`, l.dashed[0], l.dashed[1])
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%g"%s/>`, strings.Join(pts, " "), l.color, l.width, dash)
	}
	for _, d := range c.dots {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%g" fill="%s"/>`, d.x, d.y+off, d.r, d.color)
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
			attrs += fmt.Sprintf(` transform="rotate(-90 %.1f %.1f)"`, t.x, t.y+off)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="%g" font-family="sans-serif"%s>%s</text>`, t.x, t.y+off, t.size, attrs, esc(t.text))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// pdf draws the chart on the current page with its top-left corner at (x, y) mm, width w
// mm (the height keeps the plot's proportions); the title wraps as in SVG.
func (c *chart) pdf(p *fpdf.Fpdf, x, y, w float64) {
	k := w / plotW // mm per plot pixel
	const ptPerMM = 72 / 25.4
	off := c.offset()
	pt := func(px, py float64) (float64, float64) { return x + px*k, y + (py+off)*k }
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
	for i, l := range c.titleLines() { // above the plot: drawn before the offset applies
		text(chartText{x: 4, y: 14 + titleLead*float64(i) - off, size: 11, anchor: "start", text: l})
	}
	p.SetDrawColor(153, 153, 153)
	p.SetLineWidth(0.2)
	fx, fy := pt(padL, padT)
	p.Rect(fx, fy, frameW*k, frameH*k, "D")
	for _, l := range append(slices.Clone(c.ticks), c.lines...) {
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

// histogramChart draws both sides' counts as step outlines on the shared bins, with tick
// labels along both axes at round values.
func histogramChart(s *verdict.ScoreSummary) *chart {
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
	lo, hi := s.Edges[0], s.Edges[len(s.Edges)-1]
	for _, v := range niceTicks(lo, hi, 5) {
		c.xTick(padL+frameW*(v-lo)/(hi-lo), tickLabel(v))
	}
	for _, v := range niceTicks(0, float64(top), 4) {
		if v == math.Trunc(v) { // counts are whole
			c.yTick(y(int(v)), strconv.Itoa(int(v)))
		}
	}
	c.xLabel("attack score")
	c.yLabel("count per bin")
	c.text(padL, legendY, 10, "start", "#b2182b", "— unlearned")
	c.text(padL+90, legendY, 10, "start", "#2166ac", "- - retrained")
	return c
}

// niceTicks are round values (1, 2 or 5 times a power of ten apart) in [lo, hi], about n
// of them: where an axis is labelled. A range of one value gets that value.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		if finite(lo) {
			return []float64{lo}
		}
		return nil
	}
	raw := (hi - lo) / float64(n)
	mag := fexp.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // not -0 or 1e-17
		}
		out = append(out, v)
	}
	return out
}

// tickLabel writes a tick value in at most four significant digits.
func tickLabel(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// rocChart draws the ROC curve on log–log axes with the chance diagonal: the false-positive
// rate from 1/(retrained trials), the true-positive rate from 1/(unlearned trials), the
// smallest nonzero rates those trials can show.
func rocChart(s *verdict.ScoreSummary) *chart {
	neg, pos := 0, 0
	for i := range s.Retrained {
		neg += s.Retrained[i]
		pos += s.Unlearned[i]
	}
	c, _, _ := logROC("ROC (log–log): "+s.Name, 1/float64(max(neg, 2)), 1/float64(max(pos, 2)), s.ROC)
	c.xLabel(fmt.Sprintf("false-positive rate (retrained called unlearned), from 1/%d", neg))
	c.yLabel(fmt.Sprintf("true-positive rate, from 1/%d", pos))
	return c
}

// logROC is a ROC curve on log–log axes, the false-positive rate from xFloor to 1 and the
// true-positive rate from yFloor, with the chance diagonal and a tick at every power of ten
// (and at each floor), and the chart's axis maps. Rates below a floor sit on its edge.
func logROC(title string, xFloor, yFloor float64, roc []verdict.ROCPoint) (c *chart, x, y func(float64) float64) {
	c = &chart{title: title}
	pos := func(r, floor, span float64) float64 {
		lf := math.Log10(floor)
		return (math.Log10(math.Max(r, floor)) - lf) / -lf * span
	}
	x = func(f float64) float64 { return padL + pos(f, xFloor, frameW) }
	y = func(t float64) float64 { return plotH - padB - pos(t, yFloor, frameH) }
	d := math.Max(xFloor, yFloor) // the diagonal starts where both axes reach
	c.line("#bbbbbb", 1, []float64{3, 3}, [2]float64{x(d), y(d)}, [2]float64{x(1), y(1)})
	var pts [][2]float64
	for _, p := range roc {
		if p.FPR > 0 || p.TPR > 0 {
			pts = append(pts, [2]float64{x(p.FPR), y(p.TPR)})
		}
	}
	if len(pts) > 0 {
		c.line("#1b7837", 1.5, nil, pts...)
	}
	for _, t := range logTicks(xFloor) {
		c.xTick(x(t), rateLabel(t))
	}
	for _, t := range logTicks(yFloor) {
		c.yTick(y(t), rateLabel(t))
	}
	return c, x, y
}

// logTicks are the floor and every power of ten from it to 1, a power dropped when it
// sits closer than a factor 2 to the floor (their labels would overlap).
func logTicks(floor float64) []float64 {
	ticks := []float64{floor}
	for d := math.Ceil(math.Log10(floor)); d <= 0; d++ {
		if v := fexp.Pow(10, d); v/floor >= 2 {
			ticks = append(ticks, v)
		}
	}
	return ticks
}

// traceChart draws a trace against the number of requests: the measured values solid, the
// bound dashed. The y axis is logarithmic when the values span more than a decade (a
// distance of 1e-6 beside a radius of 1e-2 would sit on the axis otherwise), with zeros
// drawn on the axis floor; a single request is drawn as a short tick.
func traceChart(t Trace) *chart {
	c := &chart{title: t.Name}
	lo, hi := math.Inf(1), 0.0
	for _, vs := range [][]table.Number{t.Values, t.Bound} {
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
			f := (math.Log10(math.Max(v, fexp.Pow(10, llo))) - llo) / (lhi - llo)
			return plotH - padB - frameH*math.Min(f, 1)
		}
		for d := llo; d <= lhi; d++ {
			if lhi-llo <= 6 || int(d-llo)%2 == 0 || d == lhi { // at most about seven labels
				c.yTick(ymap(fexp.Pow(10, d)), fmt.Sprintf("1e%g", d))
			}
		}
	} else {
		top := hi * 1.1
		ymap = func(v float64) float64 { return plotH - padB - frameH*math.Min(math.Max(v, 0)/top, 1) }
		for _, v := range niceTicks(0, top, 4) {
			c.yTick(ymap(v), tickLabel(v))
		}
	}
	first, last := float64(t.Requests[0]), float64(t.Requests[len(t.Requests)-1])
	if first == last {
		first, last = first-0.5, last+0.5
	}
	xmap := func(r float64) float64 { return padL + frameW*(r-first)/(last-first) }
	series := func(vs []table.Number, color string, dashed []float64) {
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
	for _, r := range niceTicks(float64(t.Requests[0]), float64(t.Requests[len(t.Requests)-1]), 5) {
		if r == math.Trunc(r) { // requests are whole
			c.xTick(xmap(r), strconv.Itoa(int(r)))
		}
	}
	c.xLabel("request served (a deletion or an addition)")
	if logY {
		c.yLabel("value (log scale)")
	} else {
		c.yLabel("value")
	}
	c.text(padL, legendY, 10, "start", "#b2182b", "— measured")
	c.text(padL+80, legendY, 10, "start", "#2166ac", "- - "+shorten(t.BoundName, 38))
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
// or hide what 10⁵ show), and the true-positive rate at 1/Forget. Points at FPR 0 sit on
// the left edge, true-positive rates below the floor on the bottom edge; the reported TPRs
// at FPR 0.1 % and 1 % are marked.
func membershipROCChart(m *Membership) *chart {
	c, x, y := logROC("ROC (log–log): deleted against held-out records", 1/float64(max(m.Holdout, 2)), 1/float64(max(m.Forget, 2)), m.ROC)
	for _, t := range m.TPR {
		c.dot(x(float64(t.FP)/float64(m.Holdout)), y(float64(t.TPR)), 3, "#b2182b")
	}
	c.xLabel(fmt.Sprintf("false-positive rate (held-out flagged), from 1/%d", m.Holdout))
	c.yLabel(fmt.Sprintf("TPR: deleted flagged, from 1/%d", m.Forget))
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
	// scores near ±MaxFloat64 (a saturated logit) overflow hi − lo: the scale then works on
	// halves, whose differences never do (scale 1 otherwise, the same arithmetic as ever)
	scale := 1.0
	if math.IsInf(hi-lo, 0) {
		scale = 0.5
	}
	lo, hi = lo*scale, hi*scale
	span := hi - lo
	lo, hi = lo-0.05*span, hi+0.05*span
	y := func(v float64) float64 {
		if scale != 1 {
			return plotH - padB - frameH*((v*scale-lo)/(hi-lo)) // frameH × a score would overflow
		}
		return plotH - padB - frameH*(v-lo)/(hi-lo)
	}
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
	for _, v := range niceTicks(lo, hi, 4) {
		if v /= scale; finite(v) {
			c.yTick(y(v), tickLabel(v))
		}
	}
	for _, r := range niceTicks(1, float64(n), 5) {
		if r == math.Trunc(r) && r >= 1 {
			c.xTick(x(int(r)-1), strconv.Itoa(int(r)))
		}
	}
	c.xLabel("deleted records, ranked by percentile among held-out scores")
	c.yLabel("score (higher = more member-like)")
	return c
}

// rateLabel writes a rate for an axis: 0.01, 0.004, 1e-4, 3.3e-5.
func rateLabel(r float64) string {
	if r >= 1e-3 {
		return strconv.FormatFloat(r, 'g', 2, 64)
	}
	e := math.Floor(math.Log10(r))
	mant := r / fexp.Pow(10, e)
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
