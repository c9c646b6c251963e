package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func testFigure() Figure {
	return Figure{
		Title: "excess risk", XLabel: "update", YLabel: "excess risk", LogY: true,
		Series: []Series{
			{Name: "measured", X: []float64{0, 1, 2, 3}, Y: []float64{0.1, 0.12, -0.01, math.NaN()}, Points: true},
			{Name: "bound", X: []float64{0, 3}, Y: []float64{1, 1}, Dashed: true},
		},
	}
}

func TestFigureRenderIsDeterministic(t *testing.T) {
	for _, format := range Formats {
		var a, b bytes.Buffer
		da, err := testFigure().Render(&a, format)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := testFigure().Render(&b, format); err != nil {
			t.Fatal(err)
		}
		if a.Len() == 0 || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: two renderings differ (%d and %d bytes)", format, a.Len(), b.Len())
		}
		// the negative value cannot sit on a log axis and NaN nowhere
		if da != 2 {
			t.Fatalf("%s: dropped %d values, want 2", format, da)
		}
	}
	// two renderings a second apart would differ if the PDF kept the clock's date
	var pdf bytes.Buffer
	if _, err := testFigure().Render(&pdf, "pdf"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(pdf.Bytes(), []byte("D:20000101")) {
		t.Error("the PDF's creation date is not the fixed one")
	}
	var svg bytes.Buffer
	if _, err := testFigure().Render(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "measured", "bound", "excess risk"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestFigureRenderErrors(t *testing.T) {
	f := testFigure()
	if _, err := f.Render(&bytes.Buffer{}, "gif"); err == nil || !strings.Contains(err.Error(), "gif") {
		t.Errorf("unknown format: err = %v", err)
	}
	f.Series[0].Y = f.Series[0].Y[:2]
	if _, err := f.Render(&bytes.Buffer{}, "svg"); err == nil || !strings.Contains(err.Error(), `"measured"`) {
		t.Errorf("ragged series: err = %v", err)
	}
	// nothing drawable on a log axis still renders
	empty := Figure{Title: "empty", LogY: true, LogX: true, Series: []Series{{Name: "zeros", X: []float64{0}, Y: []float64{0}}}}
	if n, err := empty.Render(&bytes.Buffer{}, "svg"); err != nil || n != 1 {
		t.Errorf("empty log figure: dropped %d, err %v", n, err)
	}
}
