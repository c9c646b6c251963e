package main

import (
	"bytes"
	"encoding/json"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// browserProbe runs inside the rendered page (in a test copy only: the report itself has
// no script) and writes what the browser laid out: the verdict table as read, and every
// plot's size and the extent of its curves.
const browserProbe = `<pre id="__probe"></pre><script>
(function () {
  const out = {rows: [], plots: [], controls: 0, overflow: document.documentElement.scrollWidth - window.innerWidth};
  document.querySelectorAll('#verdicts tr').forEach(function (tr, i) {
    if (i === 0) return;
    const td = tr.querySelectorAll('td');
    out.rows.push({subject: td[0].textContent, verdict: td[1].textContent});
  });
  document.querySelectorAll('svg').forEach(function (s) {
    const r = s.getBoundingClientRect();
    const curves = [];
    s.querySelectorAll('polyline').forEach(function (p) {
      const b = p.getBBox();
      curves.push({x: b.x, y: b.y, w: b.width, h: b.height, points: p.points.numberOfItems});
    });
    out.plots.push({label: s.getAttribute('aria-label'), w: r.width, h: r.height, curves: curves});
  });
  out.controls = Math.max(0, document.querySelectorAll('#controls-table tr').length - 1);
  document.getElementById('__probe').textContent = JSON.stringify(out);
})();
</script>`

type probed struct {
	Rows     []struct{ Subject, Verdict string }
	Plots    []probedPlot
	Controls int
	Overflow float64
}

type probedPlot struct {
	Label  string
	W, H   float64
	Curves []struct {
		X, Y, W, H float64
		Points     int
	}
}

// headlessBrowser finds Debian's chromium-headless-shell (which .ci/run installs); without
// it the test is skipped locally and fails under CI.
func headlessBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium-headless-shell", "chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium-headless-shell missing (apt-get install chromium-headless-shell)")
	}
	t.Skip("chromium-headless-shell not installed (apt-get install chromium-headless-shell)")
	return ""
}

func browse(t *testing.T, browser string, args ...string) []byte {
	t.Helper()
	// --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
	// (a later --window-size overrides this one)
	cmd := exec.Command(browser, append([]string{"--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.Bytes())
	}
	return out
}

// A browser renders the HTML report of a real audit (a run with its negative controls) and
// of a verify with a FAIL: the verdict table it lays out holds every subject with the
// verdict of report.json, every game's two plots and every per-request trace are drawn at
// full size with their curves inside the frame, nothing overflows a 1280-pixel laptop window, and a screenshot shows a
// page. UNLEARNAUDIT_SCREENSHOT=FILE keeps the run's screenshot (the README's image).
func TestHTMLReportInBrowser(t *testing.T) {
	browser := headlessBrowser(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d", "variants": ["strongly-convex"]}, "claim": {"epsilon": 1, "delta": 1e-3}, "trials": 50}`), 0o644)
	runOut := filepath.Join(dir, "run")
	if _, stderr, code := runCLI(t, "run", "--spec", spec, "--out", runOut); code != exitPass {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	verifyOut := filepath.Join(dir, "verify")
	models := filepath.Join("testdata", "verify")
	if _, stderr, code := runCLI(t, "verify", "--spec", spec, "--unlearned", filepath.Join(models, "broken"),
		"--retrained", filepath.Join(models, "retrained"), "--out", verifyOut); code != exitFail {
		t.Fatalf("verify: exit %d, want %d: %s", code, exitFail, stderr)
	}
	for _, out := range []string{runOut, verifyOut} {
		rep, _ := readReport(t, out)
		page := filepath.Join(out, "report.html")
		if _, stderr, code := runCLI(t, "report", "--in", filepath.Join(out, "report.json"), "--format", "html", "--out", page); code != exitPass {
			t.Fatalf("report: exit %d: %s", code, stderr)
		}
		rendered, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		probePage := filepath.Join(out, "probe.html")
		os.WriteFile(probePage, bytes.Replace(rendered, []byte("</body>"), []byte(browserProbe+"</body>"), 1), 0o644)
		dom := string(browse(t, browser, "--dump-dom", "file://"+probePage))
		start, end := strings.Index(dom, `<pre id="__probe">`), strings.Index(dom, "</pre><script>")
		if start < 0 || end < start {
			t.Fatalf("%s: the probe did not run; DOM:\n%.2000s", page, dom)
		}
		var got probed
		if err := json.Unmarshal([]byte(html.UnescapeString(dom[start+len(`<pre id="__probe">`):end])), &got); err != nil {
			t.Fatalf("%s: probe output: %v", page, err)
		}

		if len(got.Rows) != len(rep.Subjects) {
			t.Errorf("%s: verdict table shows %d subjects, report has %d", page, len(got.Rows), len(rep.Subjects))
		}
		for i, row := range got.Rows {
			if i < len(rep.Subjects) && (row.Subject != rep.Subjects[i].Name || row.Verdict != rep.Subjects[i].Verdict) {
				t.Errorf("%s: verdict row %d shows %s %s, report has %s %s", page, i, row.Subject, row.Verdict, rep.Subjects[i].Name, rep.Subjects[i].Verdict)
			}
		}
		if got.Controls != len(rep.Controls) {
			t.Errorf("%s: controls table shows %d rows, report has %d", page, got.Controls, len(rep.Controls))
		}
		withScores, traces := 0, 0
		for _, s := range rep.Subjects {
			for _, f := range s.Findings {
				if f.Scores != nil {
					withScores++
				}
				traces += len(f.Traces)
			}
		}
		if withScores == 0 || len(got.Plots) != 2*withScores+traces {
			t.Errorf("%s: %d plots drawn for %d findings with scores and %d traces (want a histogram and an ROC curve each, and a plot per trace)", page, len(got.Plots), withScores, traces)
		}
		if out == runOut && traces == 0 {
			t.Errorf("%s: the run's D2D findings carry no per-request trace", page)
		}
		for _, p := range got.Plots {
			if p.W < 300 || p.H < 180 {
				t.Errorf("%s: plot %q laid out at %g × %g", page, p.Label, p.W, p.H)
			}
			if len(p.Curves) == 0 {
				t.Errorf("%s: plot %q has no curve", page, p.Label)
			}
			for _, c := range p.Curves {
				// inside the 360 × 220 frame, and a curve, not a point
				if c.Points < 2 || c.W <= 0 || c.X < 0 || c.Y < 0 || c.X+c.W > 360 || c.Y+c.H > 220 {
					t.Errorf("%s: plot %q: curve of %d points at (%g, %g) size %g × %g", page, p.Label, c.Points, c.X, c.Y, c.W, c.H)
				}
			}
		}
		if got.Overflow > 0 {
			t.Errorf("%s: the page is %g pixels wider than a 1280-pixel window", page, got.Overflow)
		}

		shot := filepath.Join(out, "report.png")
		browse(t, browser, "--screenshot="+shot, "file://"+page)
		checkScreenshot(t, shot)
		if keep := os.Getenv("UNLEARNAUDIT_SCREENSHOT"); keep != "" && out == runOut {
			// the README's image: tall enough to show the findings and the plots
			browse(t, browser, "--window-size=1280,2900", "--screenshot="+keep, "file://"+page)
		}
	}
}

// checkScreenshot asserts a window-sized PNG with something drawn on it: the verdict
// colours and text make well over 1 % of the pixels non-white.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() != 1280 || b.Dy() != 900 {
		t.Errorf("%s: %d × %d, want 1280 × 900", path, b.Dx(), b.Dy())
	}
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				inked++
			}
		}
	}
	if frac := float64(inked) / float64(b.Dx()*b.Dy()); frac < 0.01 {
		t.Errorf("%s: only %.2f %% of the pixels are not white: a blank page", path, 100*frac)
	}
}
