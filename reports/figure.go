package reports

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PDFs carry a creation and a modification date, which would make two renderings of the
// same figure differ; fix both so that output depends on the figure alone.
func init() {
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	fpdf.SetDefaultCreationDate(epoch)
	fpdf.SetDefaultModificationDate(epoch)
}

// A Figure is a line chart of measured series and the bounds beside them. It holds data
// only; Render draws it.
type Figure struct {
	Title          string
	XLabel, YLabel string
	LogX, LogY     bool
	Series         []Series
}

// A Series is one line. Series with the same Group share a colour, so a measurement and
// its bound read as a pair; negative groups are shades of grey, for reference lines.
type Series struct {
	Name  string
	X, Y  []float64
	Group int
	// Dashed draws a bound or a reference rather than a measurement.
	Dashed bool
	// Points marks each value.
	Points bool
}

// Formats Render accepts.
var Formats = verdict.FigureFormats

// Render draws the figure as SVG, PNG or PDF, 9×4.5 inches with the legend in a column on
// the right so that it never covers the data. Values that the axes cannot
// show (non-finite, or ≤ 0 on a log axis) are left out of their series, and Render says
// how many in the returned count so the caption can say so. The output depends on the
// figure alone, byte for byte.
func (f Figure) Render(w io.Writer, format string) (dropped int, err error) {
	p := plot.New()
	// a long title wraps onto more lines rather than running off the canvas
	p.Title.Text = strings.Join(Wrap(f.Title, figureTitleChars), "\n")
	p.X.Label.Text, p.Y.Label.Text = f.XLabel, f.YLabel
	if f.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if f.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	for _, s := range f.Series {
		if len(s.X) != len(s.Y) {
			return 0, fmt.Errorf("render figure %q: series %q has %d x and %d y values", f.Title, s.Name, len(s.X), len(s.Y))
		}
		var pts plotter.XYs
		for i := range s.X {
			x, y := s.X[i], s.Y[i]
			if !finite(x) || !finite(y) || (f.LogX && x <= 0) || (f.LogY && y <= 0) {
				dropped++
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: y})
		}
		if len(pts) == 0 {
			continue
		}
		var c color.Color = color.Gray{Y: uint8(max(0, 140-40*(-s.Group-1)))}
		if s.Group >= 0 {
			c = plotutil.Color(s.Group)
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return 0, fmt.Errorf("render figure %q: %w", f.Title, err)
		}
		line.Color, line.Width = c, vg.Points(1.2)
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(line)
		entry := []plot.Thumbnailer{line}
		if s.Points {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return 0, fmt.Errorf("render figure %q: %w", f.Title, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			entry = append(entry, sc)
		}
		legend.Add(s.Name, entry...)
	}
	if f.LogY { // a log axis needs a positive range even when every value was dropped
		p.Y.Min, p.Y.Max = positiveRange(p.Y.Min, p.Y.Max)
	}
	if f.LogX {
		p.X.Min, p.X.Max = positiveRange(p.X.Min, p.X.Max)
	}
	const width, height, legendWidth = 9 * vg.Inch, 4.5 * vg.Inch, 2.3 * vg.Inch
	canvas, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return 0, fmt.Errorf("render figure %q as %s: %w", f.Title, format, err)
	}
	dc := draw.New(canvas)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Draw(draw.Crop(draw.Crop(dc, width-legendWidth, 0, 0, 0), vg.Points(8), 0, 0, -vg.Points(24)))
	if _, err := canvas.WriteTo(w); err != nil {
		return 0, fmt.Errorf("render figure %q: %w", f.Title, err)
	}
	return dropped, nil
}

// figureTitleChars is how many characters of the default title font fit across the plot
// beside the legend column.
const figureTitleChars = 80

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func positiveRange(lo, hi float64) (float64, float64) {
	if !(lo > 0) || !(hi >= lo) {
		return 0.1, 1
	}
	if lo == hi {
		return lo / 2, hi * 2
	}
	return lo, hi
}
