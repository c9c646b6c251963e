package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

// verifyBroken runs verify on the scikit-learn fixture that FAILs (fast: no data, no
// retraining), writing every rendering into a fresh folder, and returns the folder.
func verifyBroken(t *testing.T, args ...string) (dir, stderr string, code int) {
	t.Helper()
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "claim.json")
	if err := os.WriteFile(spec, []byte(`{"method": {"name": "my-sgd"}, "claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(tmp, "out")
	models := filepath.Join("testdata", "verify")
	_, stderr, code = runCLI(t, append([]string{"verify", "--spec", spec, "--unlearned", filepath.Join(models, "broken"),
		"--retrained", filepath.Join(models, "retrained"), "--out", dir, "--formats", "md,html"}, args...)...)
	return dir, stderr, code
}

// The report states the audit date: --date's day (a date, or an RFC 3339 time's day as
// written) over SOURCE_DATE_EPOCH's (UTC), over the clock's; in report.json and in each
// rendering.
func TestAuditDateSources(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Date(2031, 7, 4, 23, 59, 0, 0, time.FixedZone("x", -3600)) } // the 5th in UTC
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{"1700000000", nil, "2023-11-14"},
		{"1700000000", []string{"--date", "2024-02-29"}, "2024-02-29"},
		{"", []string{"--date", "2024-02-29T23:30:00-05:00"}, "2024-02-29"},
		{"", nil, "2031-07-05"},
	} {
		t.Setenv(reports.SourceDateEpoch, c.env)
		dir, stderr, code := verifyBroken(t, c.args...)
		if code != exitFail {
			t.Fatalf("%s %v: exit %d: %s", c.env, c.args, code, stderr)
		}
		rep, _ := readReport(t, dir)
		if rep.Date != c.want {
			t.Errorf("SOURCE_DATE_EPOCH=%q %v: date %q, want %q", c.env, c.args, rep.Date, c.want)
		}
		for _, f := range []string{"report.md", "report.html"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil || !strings.Contains(string(b), "Audit date: "+c.want) {
				t.Errorf("SOURCE_DATE_EPOCH=%q %v: %s lacks the date %s (%v)", c.env, c.args, f, c.want, err)
			}
		}
	}
}

// A bad --date or SOURCE_DATE_EPOCH is bad usage (exit 2), named, refused before any
// work: nothing is written.
func TestAuditDateRefusals(t *testing.T) {
	dir, stderr, code := verifyBroken(t, "--date", "2024-13-01")
	if code != exitUsage || !strings.Contains(stderr, "--date") || !strings.Contains(stderr, "2024-13-01") {
		t.Errorf("verify --date 2024-13-01: exit %d, %q; want 2 naming --date and the value", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("verify with a bad --date left %s (%v)", dir, err)
	}
	t.Setenv(reports.SourceDateEpoch, "yesterday")
	if _, stderr, code := verifyBroken(t); code != exitUsage || !strings.Contains(stderr, "SOURCE_DATE_EPOCH") {
		t.Errorf("SOURCE_DATE_EPOCH=yesterday: exit %d, %q; want 2 naming it", code, stderr)
	}
	t.Setenv(reports.SourceDateEpoch, testDateEpoch)
	out := filepath.Join(t.TempDir(), "x")
	for _, args := range [][]string{
		{"demo", "--date", "tomorrow", "--out", out},
		{"merge", filepath.Join(t.TempDir(), "none"), "--date", "01/03/2025", "--out", out},
		{"report", "--in", filepath.Join(t.TempDir(), "none.json"), "--date", "2025-02-30"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "--date") {
			t.Errorf("%v: exit %d, %q; want 2 naming --date", args, code, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused --date left %s (%v)", out, err)
	}
}

// audit report keeps the date report.json holds, and --date replaces it.
func TestReportKeepsOrSetsTheDate(t *testing.T) {
	t.Setenv(reports.SourceDateEpoch, "1700000000") // the audit's: 2023-11-14
	dir, stderr, code := verifyBroken(t)
	if code != exitFail {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	in := filepath.Join(dir, "report.json")
	t.Setenv(reports.SourceDateEpoch, "1800000000") // a rendering's environment does not redate the audit
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "2023-11-14"}, {[]string{"--date", "2024-01-02"}, "2024-01-02"}} {
		md, stderr, code := runCLI(t, append([]string{"report", "--in", in, "--format", "md"}, c.args...)...)
		if code != 0 || !strings.Contains(md, "Audit date: "+c.want) {
			t.Errorf("report %v: exit %d %s; want the date %s in:\n%.300s", c.args, code, stderr, c.want, md)
		}
	}
}

// A verify report on models or scores alone — no data set, a threshold that called every
// model unlearned, a Gaussian-DP μ with no lower bound — prints no "-Inf", "NaN" or
// "0 rows × 0 features" in any rendering, and says no data set was given.
func TestVerifyWithoutDataPrintsNoInfinities(t *testing.T) {
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "claim.json")
	if err := os.WriteFile(spec, []byte(`{"method": {"name": "my-sgd"}, "claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	models := filepath.Join("testdata", "verify")
	bad := regexp.MustCompile(`-Inf|\bNaN\b|\b0 rows|\b0 features|−∞`)
	for name, args := range map[string][]string{
		"models": {"--unlearned", filepath.Join(models, "good"), "--retrained", filepath.Join(models, "retrained")},
		"scores": {"--scores", "--unlearned", filepath.Join(models, "scores_good.npz"), "--retrained", filepath.Join(models, "scores_retrained.npz")},
	} {
		out := filepath.Join(tmp, name)
		_, stderr, code := runCLI(t, append([]string{"verify", "--spec", spec, "--out", out, "--formats", "md,html,pdf"}, args...)...)
		if code != exitInconclusive {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		docs := map[string]string{}
		for _, f := range []string{"report.md", "report.html"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			docs[f] = string(b)
		}
		if tool, err := exec.LookPath("pdftotext"); err == nil {
			b, err := exec.Command(tool, filepath.Join(out, "report.pdf"), "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			docs["report.pdf"] = strings.Join(strings.Fields(string(b)), " ")
		}
		for f, doc := range docs {
			if m := bad.FindString(doc); m != "" {
				i := strings.Index(doc, m)
				t.Errorf("%s %s prints %q: …%s…", name, f, m, doc[max(0, i-120):min(len(doc), i+40)])
			}
			if !strings.Contains(doc, "No data set given") {
				t.Errorf("%s %s does not say no data set was given", name, f)
			}
		}
	}
}
