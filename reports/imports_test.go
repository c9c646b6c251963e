package reports

import (
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/layers"
)

// reports renders values its callers computed, so it must import leaves only (issue 42):
// the vocabulary audit/verdict, audit/evidence, the instruments verdict rests on, and
// internal/ — never the audit root, mia, retrain or reference, which compute. The test
// asks the go command for every package reports depends on, the test files left out, and
// refuses any of the module's packages outside the leaves, naming the chain that brought
// it in.
func TestImportsLeavesOnly(t *testing.T) {
	const module = "github.com/unlearnaudit/unlearnaudit"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	imports := map[string][]string{} // package → what it imports
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	if _, ok := imports[module+"/reports"]; !ok || len(imports) < 10 {
		t.Fatalf("go list -deps listed %d packages without reports itself: %q", len(imports), out)
	}
	leaf := func(p string) bool {
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			return true // the standard library and other modules: checked below for gonum's mat
		}
		if rel == "reports" || strings.HasPrefix(rel, "reports/") || strings.HasPrefix(rel, "internal/") {
			return true
		}
		// the vocabulary and the instruments: pure functions of counts, importing nothing
		// of the pipeline — the leaves internal/layers declares
		l, ok := layers.Of(rel)
		return ok && l == 0
	}
	// gonum's matrices belong to what computes; today only the ε instrument's per-example
	// game (audit/epsilon) and reference/dp's Rényi arithmetic, which verdict rests on,
	// bring them in. Any other importer of them is refused.
	matImporters := []string{module + "/audit/epsilon", module + "/reference/dp"}
	for _, p := range slices.Sorted(maps.Keys(imports)) {
		imps := imports[p]
		if !leaf(p) {
			t.Errorf("reports depends on %s (%s), which is no leaf", p, chain(imports, module+"/reports", p))
		}
		if strings.HasPrefix(p, module+"/") && slices.Contains(imps, "gonum.org/v1/gonum/mat") && !slices.Contains(matImporters, p) {
			t.Errorf("reports depends on gonum's mat through %s (%s)", p, chain(imports, module+"/reports", p))
		}
	}
	for _, p := range []string{module + "/audit", module + "/mia", module + "/retrain", module + "/reference", module + "/reference/d2d"} {
		if leaf(p) {
			t.Errorf("%s counts as a leaf", p) // the rule above must refuse the packages the issue names
		}
	}
}

// chain is a shortest import path from one package to another, "a → b → c".
func chain(imports map[string][]string, from, to string) string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var path []string
			for ; p != ""; p = prev[p] {
				path = append(path, p)
			}
			slices.Reverse(path)
			return strings.Join(path, " → ")
		}
		for _, q := range imports[p] {
			if _, seen := prev[q]; !seen {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return "no path"
}
