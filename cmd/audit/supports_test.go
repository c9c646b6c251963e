package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// verifyJSON runs verify with --json and returns its first finding, as report.json has it.
func verifyJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"verify", "--json", "--force"}, args...)...)
	if code != exitFail && code != exitInconclusive && code != exitPass {
		t.Fatalf("verify %v: exit %d\n%s", args, code, errOut)
	}
	var rep struct {
		Subjects []struct {
			Findings []map[string]any `json:"findings"`
		} `json:"subjects"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Subjects) == 0 || len(rep.Subjects[0].Findings) == 0 {
		t.Fatalf("verify %v: %v\n%s", args, err, out)
	}
	return rep.Subjects[0].Findings[0]
}

// planJSON runs plan with --json.
func planJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := runCLI(t, append(append([]string{"plan"}, args...), "--json")...)
	if code != exitPass {
		t.Fatalf("plan %v: exit %d\n%s", args, code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("plan %v: %v\n%s", args, err, out)
	}
	return m
}

// A report's first line and its power's figures are `audit plan`'s answers to the
// question the report prints (power.question.plan): the largest ε 16 models a side can
// show, the models that can show the claim violated at all and that a PASS needs, the
// smallest leak caught, and the sentence itself; and a one-model report's first line is
// `audit plan --models 1 --retrains 20`'s. Planted bug caught: plan's sentence built with
// another verdict than the report's (a PASS's "these have the power" for an INCONCLUSIVE).
func TestReportFiguresArePlansAnswers(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "spec.json", `{"claim": {"epsilon": 1, "delta": 1e-3}}`)
	u := writeGaussian(t, dir, "u.csv", 16, 30, 0, 3)
	r := writeGaussian(t, dir, "r.csv", 16, 30, 0, 4)
	f := verifyJSON(t, "--spec", spec, "--scores", "--unlearned", u, "--retrained", r, "--out", filepath.Join(dir, "game"))
	power := f["power"].(map[string]any)
	plan := strings.Fields(power["question"].(map[string]any)["plan"].(string))
	if len(plan) < 3 || plan[0] != "audit" || plan[1] != "plan" {
		t.Fatalf("the report's plan command %q", plan)
	}
	p := planJSON(t, plan[2:]...)
	for report, planned := range map[string]string{"max_showable_epsilon": "max_certifiable_epsilon", "trials_to_show_violation": "trials_for_resolution",
		"trials_to_pass": "trials_needed", "smallest_detectable_epsilon": "smallest_detectable_epsilon", "smallest_detectable_mu": "smallest_detectable_mu", "max_showable_mu": "max_showable_mu"} {
		if power[report] == nil || power[report] != p[planned] {
			t.Errorf("report's %s %v, plan's %s %v", report, power[report], planned, p[planned])
		}
	}
	detail := f["detail"].(string)
	if s := p["supports"].(string); s == "" || !strings.HasPrefix(detail, s+". ") {
		t.Errorf("the report's first line is not plan's:\nplan:   %s\nreport: %s", s, detail)
	}
	if !strings.Contains(detail, "What 16 trials per side support") || !strings.Contains(detail, "the most they can show is ε = 0.533") {
		t.Errorf("16 a side: %s", detail)
	}
	one := writeGaussian(t, dir, "one.csv", 1, 30, -20, 5)
	refs := writeGaussian(t, dir, "refs.csv", 20, 30, 0, 6)
	f = verifyJSON(t, "--spec", spec, "--scores", "--unlearned", one, "--retrained", refs, "--out", filepath.Join(dir, "rank"))
	p = planJSON(t, "--models", "1", "--epsilon", "1", "--delta", "1e-3", "--retrains", "20")
	if s := p["supports"].(string); !strings.HasPrefix(f["detail"].(string), s+". ") || p["retrains_needed"] != float64(55) {
		t.Errorf("the rank report's first line is not plan --models's (%v retrains needed):\nplan:   %s\nreport: %s", p["retrains_needed"], s, f["detail"])
	}
}
