package layers

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/unlearnaudit/unlearnaudit"

// allowed are the imports that break the order, each with what would remove it: none since
// issue 42's work packages merged. The test fails when an edge here no longer exists, so
// the list can only shrink.
var allowed = map[Edge]string{}

// graph is the module's packages with the packages of the module each imports (test
// files are not counted: a test may reach up).
func graph(t *testing.T) map[string][]string {
	t.Helper()
	pkgs, err := List("../..", module)
	if err != nil {
		t.Fatal(err)
	}
	g := map[string][]string{}
	for _, p := range pkgs {
		g[p.Path] = p.Imports
	}
	return g
}

// No package imports one above it in Order, and reports imports leaves alone, except the
// edges allowed above; every package has a layer; every allowed edge still exists.
// Planted: `import _ ".../audit"` in audit/epsilon fails it ("imports a package of a
// higher layer: leaves < method contract"); so does an allowed edge that is gone.
func TestNoPackageImportsOneAboveIt(t *testing.T) {
	g := graph(t)
	if len(g) < 40 {
		t.Fatalf("go list found %d packages: the module was not listed", len(g))
	}
	bad, unplaced := Check(g)
	slices.Sort(unplaced)
	for _, p := range unplaced {
		t.Errorf("%s is in no layer: place it in layers.Order", p)
	}
	for e, why := range bad {
		if _, ok := allowed[e]; !ok {
			t.Errorf("%s imports %s: %s", e.From, e.To, why)
		}
	}
	for e, why := range allowed {
		if _, ok := bad[e]; !ok {
			t.Errorf("allowed edge %s → %s (%s) is no longer a violation: delete it from allowed", e.From, e.To, why)
		}
	}
}

// The checker itself, on a made-up graph: an instrument reaching the audit root, a method
// reaching up to the pipeline, reports reaching the models, and a package no layer names
// are each caught; the imports that go down or sideways are not.
func TestCheckCatchesPlantedEdges(t *testing.T) {
	g := map[string][]string{
		"audit/epsilon":   {"audit", "internal/clip"},
		"audit/d2daudit":  {"audit", "reports", "reference/d2d", "audit/pipeline"},
		"reports":         {"audit/verdict", "mia"},
		"reference/d2d":   {"reference", "reference/dp"},
		"audit/somewhere": {"audit"},
		"cmd/audit":       {"audit/pipeline", "reports"},
		"mia":             {"retrain", "reference"},
	}
	bad, unplaced := Check(g)
	want := []Edge{{"audit/epsilon", "audit"}, {"audit/d2daudit", "audit/pipeline"}, {"reports", "mia"}}
	for _, e := range want {
		if _, ok := bad[e]; !ok {
			t.Errorf("%s → %s not caught", e.From, e.To)
		}
	}
	if len(bad) != len(want) {
		t.Errorf("caught %v, want exactly %v", bad, want)
	}
	if !slices.Equal(unplaced, []string{"audit/somewhere"}) {
		t.Errorf("unplaced %v, want [audit/somewhere]", unplaced)
	}
}

// Of places the packages the protocol names where it names them.
func TestOf(t *testing.T) {
	for pkg, want := range map[string]string{
		"internal/clip": "leaves", "internal/audittest": "pipeline", "reports/table": "leaves", "audit/threshold": "leaves",
		"reference/dp": "leaves", "reference/internal/logit": "leaves", "reference/sglu": "models and data",
		"audit": "method contract", "audit/hfaudit": "methods", "audit/methods": "registry and properties",
		"reports": "reports", "cmd/audit": "commands", "audit/trials": "trial engine", "audit/methodkit": "method kit",
		"audit/methods/skeleton": "methods", "audit/pipeline": "pipeline",
	} {
		l, ok := Of(pkg)
		if !ok || Order[l].Name != want {
			t.Errorf("Of(%s) = %d %v, want layer %q", pkg, l, ok, want)
		}
	}
}

// List lists what go list ./... lists, with the same synopses: the layering and the layout
// table see every package. Planted: List entering the nested module reference/ensemble/asm fails it.
func TestListIsGoList(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Doc}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		want = append(want, strings.TrimPrefix(strings.TrimPrefix(line, module), "/"))
	}
	pkgs, err := List("../..", module)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pkgs {
		got = append(got, p.Path+"\t"+p.Doc)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("List differs from go list ./...:\nList:\n%s\ngo list:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
