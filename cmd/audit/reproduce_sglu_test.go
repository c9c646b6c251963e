package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

func readTables(t *testing.T, path string) (*reports.Tables, []byte) {
	t.Helper()
	js, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := reports.ReadTables(bytes.NewReader(js), path)
	if err != nil {
		t.Fatal(err)
	}
	return tb, js
}

// sglu-table3 matches all 24 entries of the paper's Table 3 and says so; --json prints
// the file's bytes.
func TestReproduceSGLUTable3(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "reproduce", "sglu-table3", "--out", dir)
	if code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "24 of 24 entries agree") || !strings.Contains(out, "0.07905598") {
		t.Errorf("summary:\n%s", out)
	}
	tb, js := readTables(t, filepath.Join(dir, "sglu-table3.json"))
	cells := 0
	for _, r := range tb.Tables[0].Rows {
		for _, c := range r.Cells {
			if c.Match == nil || !*c.Match || c.Paper == "" {
				t.Errorf("%s: %+v", r.Label, c)
			}
			cells++
		}
	}
	if cells != 24 || tb.Summary.Verdict != "PASS" {
		t.Fatalf("%d cells, summary %+v", cells, tb.Summary)
	}
	printed, _, _ := runCLI(t, "reproduce", "sglu-table3", "--out", t.TempDir(), "--json")
	if printed != string(js) {
		t.Error("--json output differs from the file")
	}
}

// sglu-fig3d: every cell's sum is the sum of its list of 100 requests, each K ≥ 1, and
// the printed loop never certifies more epochs than the recursion needs (it starts every
// request from Z_B, the recursion's least value). Same flags, same bytes.
func TestReproduceSGLUFig3d(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	out, errOut, code := runCLI(t, "reproduce", "sglu-fig3d", "--out", a, "--formats", "svg")
	if code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	tb, js := readTables(t, filepath.Join(a, "sglu-fig3d.json"))
	if len(tb.Tables) != 4 || len(tb.Figures) != 2 {
		t.Fatalf("%d tables, figures %v", len(tb.Tables), tb.Figures)
	}
	undercounts := 0
	for i := 0; i < len(tb.Tables); i += 2 {
		sound, printed := tb.Tables[i], tb.Tables[i+1]
		if len(sound.Rows) != 4 || len(sound.Columns) != 6 {
			t.Fatalf("%s: %d rows × %d columns", sound.Name, len(sound.Rows), len(sound.Columns))
		}
		for r := range sound.Rows {
			for c, cell := range sound.Rows[r].Cells {
				if len(cell.List) != 100 || float64(total(cell.List)) != float64(cell.Value) || cell.List[0] < 1 {
					t.Fatalf("%s %s col %d: %+v", sound.Name, sound.Rows[r].Label, c, cell)
				}
				pc := printed.Rows[r].Cells[c]
				if pc.Value > cell.Value || pc.List[0] != cell.List[0] {
					t.Errorf("%s %s col %d: printed loop %v vs recursion %v (first K %d vs %d)", sound.Name, sound.Rows[r].Label, c, pc.Value, cell.Value, pc.List[0], cell.List[0])
				}
				if pc.Value < cell.Value {
					undercounts++
				}
			}
		}
	}
	if undercounts == 0 {
		t.Error("the printed loop never undercounts: the recursion would be pointless")
	}
	if _, err := os.Stat(filepath.Join(a, "sglu-fig3d-mnist.svg")); err != nil {
		t.Error(err)
	}
	printed, _, _ := runCLI(t, "reproduce", "sglu-fig3d", "--out", b, "--formats", "svg", "--json")
	if printed != string(js) {
		t.Error("a second run's JSON differs")
	}
	if _, stderr, code := runCLI(t, "reproduce", "sglu-fig3d", "--out", b, "--formats", "gif"); code != exitUsage || !strings.Contains(stderr, "gif") {
		t.Errorf("bad format: exit %d %s", code, stderr)
	}
}
