package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

// Rerender renders a report.json to stdout or a file, states the date given over its
// own, and refuses, before reading the report, a bad date first, then an --out that is
// empty or the report itself.
func TestRerender(t *testing.T) {
	dir := t.TempDir()
	r := &reports.Report{Schema: reports.Schema, Date: "2026-01-01", Command: "demo"}
	r.Summarize()
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "report.json")
	if err := os.WriteFile(in, js, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := Rerender(in, "json", "2025-03-01T23:30:00+02:00", nil, &stdout); err != nil || !strings.Contains(stdout.String(), `"date": "2025-03-01"`) {
		t.Errorf("Rerender with a date to stdout: %v; wrote %q, want the date given", err, stdout.String())
	}
	out := filepath.Join(dir, "report.md")
	if err := Rerender(in, "md", "", &out, &stdout); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "2026-01-01") {
		t.Errorf("report.md does not state the report's own date:\n%s", b)
	}
	empty, missing := "", filepath.Join(dir, "none.json")
	for _, c := range []struct {
		name, in, date string
		out            *string
		want           string
	}{
		{"no --in", "", "", nil, "report: --in is required"},
		{"a bad date before a bad --out", missing, "March", &in, "report: --date: "},
		{"--out the report", in, "", &in, "report: --out "},
		{"--out empty", missing, "", &empty, "report: --out"},
		{"--in missing", missing, "", nil, "report: --in: "},
	} {
		if err := Rerender(c.in, "md", c.date, c.out, &stdout); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error beginning %q", c.name, err, c.want)
		}
	}
	if b, _ := os.ReadFile(in); !bytes.Equal(b, js) {
		t.Error("report.json changed")
	}
}
