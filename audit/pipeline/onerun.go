package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// A OneRunPlan is the one-run demo (audit demo --one-run): each wanted variant and its
// negative controls audited with one training run with m canaries, m climbing the Ladder.
type OneRunPlan struct {
	Command     string   // the report's command and the errors' prefix
	CommandLine []string // the command line that decides the report
	Version     string   // the tool's version
	Date        string   // the audit date the report states

	Data  *Data // 𝒟₀'s source; the canaries are added to it
	Setup Setup // the claim, the checks' settings, the variants and the methods' settings (no Deletes: the canaries are deleted)
	// VariantsGiven runs the variants named even when one run of them is costly; without
	// it those are left out and said so (OneRunOutcome.Skipped).
	VariantsGiven bool
	Ladder        []int                      // the canary counts tried, increasing
	Progress      func(method string, m int) // told of each rung as it starts, if set
}

// OneRunOutcome is the one-run demo's report, with every subject's and control's result
// (for the table a front end prints) and the costly variants left out, with why.
type OneRunOutcome struct {
	Report  *reports.Report
	Results []canary.OneRunResult
	Skipped []string
}

// OneRun runs the one-run demo (canary.OneRunDemo for every method with wanted variants)
// and returns its report, summarized: its subjects are the honest variants' one-run
// findings, its controls the controls' (which do not enter the verdict).
func OneRun(ctx context.Context, p OneRunPlan) (*OneRunOutcome, error) {
	if p.Data == nil || p.Data.Set == nil || len(p.Ladder) == 0 {
		return nil, errors.New("pipeline.OneRun: the plan needs data and a ladder of canary counts")
	}
	if len(p.Setup.Deletes) > 0 {
		return nil, errors.New("--one-run: the requests delete the included canaries; --delete does not apply")
	}
	data, c, ladder := p.Data, p.Setup, p.Ladder
	setup, err := audit.NewDemoSetup(data.Set, audit.DemoConfig{Lambda: c.Lambda, Epsilon: c.Epsilon, Delta: c.Delta,
		Seed: c.Seed, Confidence: c.Confidence, PowerAgainst: c.PowerAgainst, Attacks: c.Attacks})
	if err != nil {
		return nil, err
	}
	wanted, err := Variants(c.Variants)
	if err != nil {
		return nil, err
	}
	rep := &reports.Report{
		Schema: reports.Schema, Tool: Tool(p.Version), Command: p.Command, CommandLine: p.CommandLine,
		Seed: c.Seed, Trials: 1, Confidence: table.Number(c.Confidence), Inputs: append([]reports.Input{}, data.Inputs...), Date: p.Date,
		Data: reports.Data{Description: data.Description + fmt.Sprintf("; one-run: 𝒟₀ (%d records) plus m canaries, m = %v", setup.Data.Len(), ladder),
			Rows: data.Set.Len(), Features: data.Set.Dim(), Preprocessing: data.Preprocessing,
			Requests: []string{"train on 𝒟₀ and the canaries the plan includes, then delete every included canary, one request each"}},
	}
	var all []canary.OneRunResult
	var skipped []string // costly variants left out of the default list, with why
	for _, m := range audit.Methods() {
		vs := wanted(m)
		if !p.VariantsGiven {
			for _, v := range audit.DemoVariantsOf(m) {
				if v.OneRunCost != "" && slices.Contains(vs, v.Name) {
					vs = slices.DeleteFunc(vs, func(w string) bool { return w == v.Name })
					skipped = append(skipped, fmt.Sprintf("%s (%s)", v.Name, v.OneRunCost))
				}
			}
		}
		if len(vs) == 0 {
			continue
		}
		res, err := canary.OneRunDemo(ctx, m, setup, vs, c.MethodArgs, canary.OneRunConfig{Ladder: ladder, Progress: p.Progress})
		if err != nil {
			return nil, fmt.Errorf("%s --one-run: %s: %w", p.Command, m.Name(), err)
		}
		all = append(all, res...)
	}
	if len(all) == 0 {
		return nil, errors.New("--variants: none selected")
	}
	for _, r := range all {
		var fs []verdict.Finding
		if r.Refused == "" || r.Largest > 0 {
			fs = []verdict.Finding{r.Finding}
		}
		if r.Control == "" {
			sub := reports.NewSubject(r.Subject+"/one-run", r.Claim, fs)
			sub.Noise = r.Noise
			rep.Subjects = append(rep.Subjects, sub)
		} else {
			rep.Controls = append(rep.Controls, reports.NewControl(r.Subject+"/one-run", r.Control, r.Bug, r.Claim, fs))
		}
	}
	rep.Summarize()
	return &OneRunOutcome{Report: rep, Results: all, Skipped: skipped}, nil
}
