package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

type demoConfig struct {
	out          string
	seed         uint64
	trials       int
	workers      int
	confidence   float64
	powerAgainst float64
	fresh        bool
	lambda       float64
	epsilon      float64
	delta        float64
	iterations   int
	deletes      string
	variants     string
	schedule     string
	data         dataFlags
	sgluBatch    int
	sgluSigma    float64
	sgluEpochs   int
}

// allVariants are the D2D variants the demo audits by default.
const allVariants = "strongly-convex,perfect,convex-strong,convex-weak,distributed,sglu"

// demoSubject is one audited variant: its subject and its checks.
type demoSubject struct {
	subject audit.Subject
	check   func(ctx context.Context, results []audit.TrialResult) ([]audit.Finding, error)
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c demoConfig
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.out, "out", "audit-report", "directory for report.json, report.md and the trial files")
	fs.Uint64Var(&c.seed, "seed", 1, "root seed: the same inputs and seed give the same report, byte for byte")
	fs.IntVar(&c.trials, "trials", 200, "trials per audited method")
	fs.IntVar(&c.workers, "workers", 0, "parallel trials (0: one per core)")
	fs.Float64Var(&c.confidence, "confidence", 0.95, "confidence level of the statistical checks")
	fs.BoolVar(&c.fresh, "fresh", false, "discard the finished trials kept for this configuration and run them again (a changed configuration never reuses them anyway)")
	fs.Float64Var(&c.powerAgainst, "power-against", audit.DefaultPowerAgainst, "an empirical PASS must catch, with 80 % power, a Gaussian pair at this multiple F of the claimed ε")
	fs.Float64Var(&c.lambda, "lambda", 0.05, "L2 weight λ of the logistic loss (its strong convexity)")
	fs.Float64Var(&c.epsilon, "epsilon", 1, "target ε")
	fs.Float64Var(&c.delta, "delta", 1e-6, "target δ")
	fs.IntVar(&c.iterations, "iterations", 10, "iteration budget I per update (perfect mode uses at least I_min)")
	fs.StringVar(&c.deletes, "delete", "", "record IDs to delete, comma-separated (default: the most influential record and two random ones)")
	fs.StringVar(&c.variants, "variants", allVariants, "D2D variants to audit, comma-separated")
	fs.StringVar(&c.schedule, "schedule", "fixed", "distributed descent's update budget: fixed (spec §3.9.4) or paper (Thm 4.5, whose certificate fails the corrected accounting)")
	fs.IntVar(&c.sgluBatch, "sglu-batch", 32, "SGLU: mini-batch size b (the data are cut to a multiple of it)")
	fs.Float64Var(&c.sgluSigma, "sglu-sigma", 0.05, "SGLU: noise σ (each step adds √(2ησ²)·N(0, I))")
	fs.IntVar(&c.sgluEpochs, "sglu-epochs", 0, "SGLU: learning epochs T (0: enough that Theorem 3.2's initial-law term 2R·c^{Tn/b} is below Z_B/1000)")
	c.data.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit demo [flags]\n\nAudits every Descent-to-Delete variant (Neel et al. 2020: Thms 3.1, 3.2, 3.4, 3.5, 4.5) and\nStochastic Gradient Langevin Unlearning (Chien et al. 2024) on logistic regression and writes DIR/report.json and DIR/report.md.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case c.trials < audit.MinEmpiricalTrials: // the empirical game's minimum: refuse before running anything
		return usagef("--trials %d: want at least %d", c.trials, audit.MinEmpiricalTrials)
	case !(c.confidence > 0 && c.confidence < 1):
		return usagef("--confidence %v: want a level in (0, 1)", c.confidence)
	case !(c.powerAgainst > 1):
		return usagef("--power-against %v: want a factor above 1", c.powerAgainst)
	case !(c.lambda > 0):
		return usagef("--lambda %v: want λ > 0", c.lambda)
	}
	deletes, err := parseIDs(c.deletes)
	if err != nil {
		return err
	}
	data, err := c.data.load(c.seed)
	if err != nil {
		return err
	}
	subjects, requests, err := demoSubjects(c, data.ds, deletes)
	if err != nil {
		return err
	}

	rep := &reports.Report{
		Schema: reports.Schema, Tool: reports.Tool{Name: "unlearnaudit", Version: version}, Command: "demo",
		Seed: c.seed, Trials: c.trials, Confidence: reports.Number(c.confidence), Inputs: append([]reports.Input{}, data.inputs...),
		Data: reports.Data{Description: data.description, Rows: data.ds.Len(), Features: data.ds.Dim(),
			Preprocessing: data.preprocessing, Requests: requests},
	}
	trialDir := filepath.Join(c.out, "trials")
	if err := os.MkdirAll(trialDir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	for _, ds := range subjects {
		s := ds.subject
		path := audit.CheckpointPath(trialDir, s, c.seed)
		if c.fresh {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("demo: --fresh: %w", err)
			}
		}
		eng := audit.Engine{Workers: c.workers, Checkpoint: path}
		results, err := eng.Run(ctx, s, c.seed, c.trials)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		fsd, err := ds.check(ctx, results)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		rep.Subjects = append(rep.Subjects, reports.NewSubject(s.Name(), s.Claim(), fsd))
	}
	rep.Summarize()
	if err := writeReport(rep, c.out); err != nil {
		return err
	}
	printSummary(stdout, rep, c.out)
	return verdictErr(audit.Verdict(rep.Summary.Verdict))
}

// demoSubjects builds the request sequence and one D2D subject per mode. Two random records
// are held out to be added later; the deletions are the user's IDs or, by default, the
// record with the largest gradient at the minimiser (the one whose removal moves the model
// most) and two random ones. Requests alternate delete, add, delete, add, delete.
func demoSubjects(c demoConfig, ds *reference.Dataset, deletes []int64) ([]demoSubject, []string, error) {
	r := reference.Stream(c.seed, 0, "demo/requests")
	loss := reference.Logistic{Lambda: c.lambda}
	radius := reference.MinimiserRadius(loss, ds) // θ* of every 𝒟_i stays interior

	named := map[int64]bool{}
	for _, id := range deletes {
		if !ds.Has(id) {
			return nil, nil, usagef("--delete: record ID %d is not in the dataset (IDs are 0-based row numbers of the file; rows dropped by --classes are gone)", id)
		}
		if named[id] {
			return nil, nil, usagef("--delete: record ID %d named twice", id)
		}
		named[id] = true
	}
	var candidates []int64
	for i := range ds.Len() {
		if !named[ds.ID(i)] {
			candidates = append(candidates, ds.ID(i))
		}
	}
	if len(candidates) < 5 {
		return nil, nil, usagef("--delete names %d of the %d records; the demo needs at least 5 others to hold out and keep", len(deletes), ds.Len())
	}
	r.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	holdout := candidates[:2]
	d0, err := ds.Without(holdout...)
	if err != nil {
		return nil, nil, err
	}
	if len(deletes) == 0 {
		opt, err := retrain.Minimize(loss.Objective(d0), radius, retrain.Options{})
		if err != nil {
			return nil, nil, fmt.Errorf("demo: %w", err)
		}
		row, _ := loss.Objective(d0).MostInfluential(opt.Theta)
		best := d0.ID(row)
		deletes = []int64{best}
		for _, id := range candidates[2:] {
			if len(deletes) == 3 {
				break
			}
			if id != best {
				deletes = append(deletes, id)
			}
		}
	}
	var updates []reference.Update
	for k, id := range deletes {
		updates = append(updates, reference.DeleteID(id))
		if k < len(holdout) {
			row, _ := ds.Lookup(holdout[k])
			updates = append(updates, reference.AddRecord(ds.Record(row)))
		}
	}
	requests := make([]string, len(updates))
	for i, u := range updates {
		requests[i] = u.String()
	}

	wanted := map[string]bool{}
	for _, v := range strings.Split(c.variants, ",") {
		v = strings.TrimSpace(v)
		if v != "distributed" && v != "sglu" {
			if _, err := d2d.ParseMode(v); err != nil {
				return nil, nil, usagef("--variants: %q: want some of %s", v, allVariants)
			}
		}
		wanted[v] = true
	}
	opt := d2daudit.Options{Confidence: c.confidence, Seed: c.seed, PowerAgainst: c.powerAgainst}
	wrap := func(err error) error {
		if errors.Is(err, reference.ErrUnknownID) {
			return usageError{fmt.Errorf("--delete: %w", err)}
		}
		return usageError{err}
	}
	var subjects []demoSubject
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect, d2d.ConvexStrong, d2d.ConvexWeak} {
		if !wanted[mode.String()] {
			continue
		}
		f := reference.Loss(loss)
		if mode.Convex() {
			f = reference.Logistic{} // a convex loss: the variant adds its own ridge term
		}
		p := d2d.Params{Constants: f.Constants(ds, radius), Radius: radius, Budget: c.iterations, Epsilon: c.epsilon, Delta: c.delta,
			N: d0.Len(), Dim: d0.Dim()}
		if mode == d2d.Perfect {
			p.Budget = max(p.Budget, p.PerfectMinBudget())
		}
		s, err := d2daudit.New(d2daudit.Setup{Mode: mode, Loss: f, Data: d0, Updates: updates, Params: p})
		if err != nil {
			return nil, nil, wrap(err)
		}
		subjects = append(subjects, demoSubject{s, func(ctx context.Context, r []audit.TrialResult) ([]audit.Finding, error) {
			return d2daudit.Check(ctx, s, r, opt)
		}})
	}
	if wanted["distributed"] {
		sched, err := d2d.ParseSchedule(c.schedule)
		if err != nil {
			return nil, nil, usagef("--schedule: %w", err)
		}
		s, err := d2daudit.NewDist(d2daudit.DistSetup{Loss: loss, Data: d0, Updates: updates, Params: d2d.DistParams{
			Constants: loss.Constants(ds, radius), Radius: radius, Xi: 1.2, Budget: 1, Epsilon: c.epsilon, Delta: c.delta, Schedule: sched}})
		if err != nil {
			return nil, nil, wrap(err)
		}
		subjects = append(subjects, demoSubject{s, func(ctx context.Context, r []audit.TrialResult) ([]audit.Finding, error) {
			return d2daudit.CheckDist(ctx, s, r, opt)
		}})
	}
	if wanted["sglu"] {
		s, err := demoSGLU(c, d0, deletes, radius)
		if err != nil {
			return nil, nil, wrap(err)
		}
		subjects = append(subjects, demoSubject{s, func(ctx context.Context, r []audit.TrialResult) ([]audit.Finding, error) {
			return sgluaudit.Check(ctx, s, r, sgluaudit.Options{Confidence: c.confidence, Seed: c.seed, PowerAgainst: c.powerAgainst})
		}})
	}
	if len(subjects) == 0 {
		return nil, nil, usagef("--variants: none selected")
	}
	return subjects, requests, nil
}

// demoSGLU audits SGLU on 𝒟₀ with the deletions as its removal requests (SGLU serves
// removals only, by replacing the record in its batch slot). The data are cut to a multiple
// of the batch size, keeping the records to remove, as the paper cuts its training set.
func demoSGLU(c demoConfig, d0 *reference.Dataset, removals []int64, radius float64) (*sgluaudit.Subject, error) {
	b := c.sgluBatch
	if b <= 0 || b > d0.Len() {
		return nil, usagef("--sglu-batch %d: want 1 … %d", b, d0.Len())
	}
	data, err := sgluaudit.TrimToBatches(d0, b, removals)
	if err != nil {
		return nil, err
	}
	T := c.sgluEpochs
	if T <= 0 {
		T = sgluaudit.BurnIn(sgluaudit.LogisticProblem(reference.Logistic{Lambda: c.lambda}, data, b, radius), 1e-3)
	}
	return sgluaudit.New(sgluaudit.Setup{Loss: reference.Logistic{Lambda: c.lambda}, Data: data, Removals: removals, Batch: b,
		Sigma: c.sgluSigma, Epochs: T, Radius: radius, Epsilon: c.epsilon, Delta: c.delta, Seed: c.seed})
}

// writeReport writes report.json and report.md atomically: each goes to a temporary file
// first and is renamed into place only when complete.
func writeReport(rep *reports.Report, dir string) error {
	js, err := rep.JSON()
	if err != nil {
		return err
	}
	var md strings.Builder
	if err := rep.Markdown(&md); err != nil {
		return err
	}
	for name, body := range map[string][]byte{"report.json": js, "report.md": []byte(md.String())} {
		if err := writeAtomic(filepath.Join(dir, name), body); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, body []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(body)
	merr := tmp.Chmod(0o644)
	cerr := tmp.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func printSummary(w io.Writer, rep *reports.Report, dir string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "subject\tverdict\tpass\tfail\tinconclusive\tclaim\tempirical game (supporting)\twould catch F× with 80 % power")
	for _, s := range rep.Subjects {
		var p, f, i int
		for _, x := range s.Findings {
			switch x.Verdict {
			case "PASS":
				p++
			case "FAIL":
				f++
			default:
				i++
			}
		}
		game, power := "—", "—"
		for _, x := range s.Findings {
			if x.Power != nil {
				game, power = x.Verdict, reports.PowerVerdict(x.Power)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t(ε=%g, δ=%g)\t%s\t%s\n", s.Name, s.Verdict, p, f, i, s.Claim.Epsilon, s.Claim.Delta, game, power)
	}
	tw.Flush()
	for _, s := range rep.Subjects {
		for _, f := range s.Findings {
			if f.Verdict != "PASS" && f.Required {
				fmt.Fprintf(w, "  %s %s: %s: measured %s, bound %s\n", f.Verdict, s.Name, f.Title, fmtG(float64(f.Measured)), fmtG(float64(f.Bound)))
			}
		}
	}
	fmt.Fprintln(w, "verdict: from the findings each claim requires; PASS means consistent, and every empirical PASS would have caught its F× violation with 80 % power")
	fmt.Fprintf(w, "overall: %s; report: %s, %s\n", rep.Summary.Verdict, filepath.Join(dir, "report.json"), filepath.Join(dir, "report.md"))
}
