package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// Tool is the tool a report names: the toolkit and its version, which the report records.
func Tool(version string) reports.Tool { return reports.Tool{Name: "unlearnaudit", Version: version} }

// A Plan is an audit to run: the subjects with their checks (and, with Controls, their
// negative controls), the trials, and what the report records of the run.
type Plan struct {
	Command     string   // "demo" or "run": the report's command and the errors' prefix
	CommandLine []string // the command line that decides the report, for its provenance
	Version     string   // the tool's version, written into the report
	Date        string   // the audit date the report states (reports.AuditDate)

	Seed       uint64
	Trials     int
	Workers    int // 0: GOMAXPROCS
	Confidence float64

	Data     *Data           // the data the subjects were set up on
	Requests []string        // the deletion requests, as the report lists them
	Subjects []audit.Audited // each with its checks and controls
	Controls bool            // also run and check each subject's negative controls
	Key      *evidence.Key   // authenticates the kept trials; nil: unauthenticated

	// Folder and Checkpoints are where the trials are kept, to resume from: each subject's
	// checkpoint file is trials.CheckpointPath(Checkpoints, subject, Seed) inside Folder.
	// Checkpoints "" keeps the trials in memory only.
	Folder      atomicfile.Folder
	Checkpoints string
	// ResumeOnly runs no trial: every one is read from the checkpoints (audit merge).
	ResumeOnly bool
	// Progress, if set, shows the trials done and the checks running.
	Progress *progress.Bar
}

// CheckpointFiles are the checkpoint files Run keeps inside Folder, every subject's and
// control's (audit.WithControls' order), slash-separated: what a caller claims in its
// output folder before Run appends to them.
func (p Plan) CheckpointFiles() []string {
	var files []string
	for _, a := range audit.WithControls(p.Subjects, p.Controls) {
		files = append(files, filepath.ToSlash(trials.CheckpointPath(p.Checkpoints, a.Subject, p.Seed)))
	}
	return files
}

// Run runs every subject's trials (and its controls'), resuming from their checkpoints,
// checks them side by side a batch at a time, and returns the report, summarized. An error
// names p.Command; a checkpoint that does not fit is an *trials.CheckpointError in the chain.
func Run(ctx context.Context, p Plan) (*reports.Report, error) {
	if p.Data == nil || p.Data.Set == nil {
		return nil, fmt.Errorf("%s: pipeline.Run: the plan has no data", p.Command)
	}
	if p.Progress == nil {
		p.Progress = progress.New(io.Discard, false)
	}
	rep := &reports.Report{
		Schema: reports.Schema, Tool: Tool(p.Version), Command: p.Command, CommandLine: p.CommandLine,
		Seed: p.Seed, Trials: p.Trials, Confidence: table.Number(p.Confidence), Inputs: append([]reports.Input{}, p.Data.Inputs...),
		Data: reports.Data{Description: p.Data.Description, Rows: p.Data.Set.Len(), Features: p.Data.Set.Dim(),
			Preprocessing: p.Data.Preprocessing, Requests: p.Requests},
		TrialEvidence: TrialEvidence(p.Key), Date: p.Date,
	}
	if err := runSubjects(ctx, p, rep); err != nil {
		return nil, err
	}
	rep.Summarize()
	return rep, nil
}

// TrialEvidence is what a report says of its trials under key.
func TrialEvidence(key *evidence.Key) string {
	if key != nil {
		return reports.TrialsAuthenticated
	}
	return reports.TrialsUnauthenticated
}

// checkQueue is runSubjects' queue: the checks count themselves (a bar and an ETA on a
// terminal, one check at a time). The bootstrap resamples a subject's checks share with
// its controls' are passed to the subjects when they are made (Setup.ShareResamples).
func checkQueue(ctx context.Context, p Plan) trials.CheckQueue {
	return trials.CheckQueue{Show: func(name string) (context.Context, func()) { return p.Progress.Steps(ctx, "checking "+name) }}
}

// runSubjects runs every subject's trials (and its controls'), resuming from their
// checkpoints in the plan's folder, one after another, and checks them side by side a batch at
// a time (trials.CheckQueue: at most a batch's trials held at once), adding their findings
// to rep in the same order.
func runSubjects(ctx context.Context, p Plan, rep *reports.Report) error {
	run := func(s trials.Subject) ([]trials.TrialResult, error) {
		eng := trials.Engine{Workers: p.Workers, Folder: p.Folder, Progress: p.Progress.Update, ResumeOnly: p.ResumeOnly, Key: p.Key}
		if p.Folder != nil {
			eng.Checkpoint = filepath.ToSlash(trials.CheckpointPath(p.Checkpoints, s, p.Seed))
		}
		results, err := eng.Run(ctx, s, p.Seed, p.Trials)
		p.Progress.Done()
		return results, err
	}
	q := checkQueue(ctx, p)
	for _, ds := range p.Subjects {
		s := ds.Subject
		results, err := run(s)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Command, err)
		}
		check := func(ctx context.Context) ([]verdict.Finding, error) { return ds.Check(ctx, results) }
		if err := q.Add(ctx, s.Name(), check, func(fs []verdict.Finding) {
			sub := reports.NewSubject(s.Name(), s.Claim(), fs)
			sub.Noise, _ = trials.NoiseStreamOf(s)
			rep.Subjects = append(rep.Subjects, sub)
		}); err != nil {
			return fmt.Errorf("%s: %w", p.Command, err)
		}
		if !p.Controls {
			continue
		}
		for _, ctl := range ds.Controls {
			cs := ctl.Audited.Subject
			results, err := run(cs)
			if err != nil {
				return fmt.Errorf("%s: control %s: %w", p.Command, ctl.Name, err)
			}
			check := func(ctx context.Context) ([]verdict.Finding, error) {
				fs, err := ctl.Audited.Check(ctx, results)
				if err != nil {
					return nil, fmt.Errorf("control %s: %w", ctl.Name, err)
				}
				return fs, nil
			}
			if err := q.Add(ctx, cs.Name(), check, func(fs []verdict.Finding) {
				rep.Controls = append(rep.Controls, reports.NewControl(s.Name(), ctl.Name, ctl.Bug, s.Claim(), fs))
			}); err != nil {
				return fmt.Errorf("%s: %w", p.Command, err)
			}
		}
	}
	if err := q.Flush(ctx); err != nil {
		return fmt.Errorf("%s: %w", p.Command, err)
	}
	return nil
}

// Setup is what the demo's subjects are set up from: the data's deletion requests and
// claim, the checks' settings, the variants wanted and every method's own settings.
type Setup struct {
	Deletes                  []int64 // record IDs to delete; none: the demo's choice
	Lambda, Epsilon, Delta   float64
	Seed                     uint64
	Confidence, PowerAgainst float64
	Attacks                  audit.Attacks
	Variants                 string          // comma-separated (Variants)
	MethodArgs               audit.Args      // every method's own settings, by flag name
	Spec                     string          // the spec the settings came from, if any
	FromSpec                 map[string]bool // the settings, by flag name, the spec gave: errors name its fields
	// ShareResamples gives the subjects one set of bootstrap resamples, which their
	// controls' checks share (the same bits, drawn once): set it when controls are checked,
	// and not when plan times each check alone.
	ShareResamples bool
}

// Variants reads a comma-separated list of demo variants (demo's --variants): for each
// method, the variants named, in the method's own order whatever the order of the list;
// an unknown name is refused.
func Variants(list string) (func(audit.Method) []string, error) {
	wanted := map[string][]string{} // method name → its wanted variants
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		m, ok := audit.MethodOfVariant(v)
		if !ok {
			return nil, fmt.Errorf("--variants: %s: want some of %s", clip.Quote(v), strings.Join(audit.DemoVariantNames(), ","))
		}
		if slices.Contains(wanted[m.Name()], v) {
			return nil, fmt.Errorf("--variants: %s named twice", clip.Quote(v))
		}
		wanted[m.Name()] = append(wanted[m.Name()], v)
	}
	return func(m audit.Method) []string {
		var vs []string
		for _, v := range audit.DemoVariantsOf(m) {
			if slices.Contains(wanted[m.Name()], v.Name) {
				vs = append(vs, v.Name)
			}
		}
		return vs
	}, nil
}

// NewSubjects builds the demo's requests (audit.NewDemoSetup) on ds and asks every
// registered method for the subjects of its wanted variants; each method checks its own
// settings. It returns the subjects and the requests as a report lists them.
func NewSubjects(ctx context.Context, ds *reference.Dataset, c Setup) ([]audit.Audited, []string, error) {
	setup, err := audit.NewDemoSetup(ds, audit.DemoConfig{Deletes: c.Deletes, Lambda: c.Lambda, Epsilon: c.Epsilon, Delta: c.Delta,
		Seed: c.Seed, Confidence: c.Confidence, PowerAgainst: c.PowerAgainst, Attacks: c.Attacks})
	var se *audit.SettingError
	if errors.As(err, &se) && c.FromSpec[se.Flag] {
		return nil, nil, se.InSpec(c.Spec)
	}
	if err != nil {
		return nil, nil, err
	}
	if c.ShareResamples {
		setup.Resamples = mia.NewResamples(trials.SharedBudget)
	}
	requests := make([]string, len(setup.Updates))
	for i, u := range setup.Updates {
		requests[i] = u.String()
	}
	wanted, err := Variants(c.Variants)
	if err != nil {
		return nil, nil, err
	}
	var subjects []audit.Audited
	for _, m := range audit.Methods() {
		d, ok := m.(audit.Demoer)
		if !ok {
			continue // a method with no demo has no subjects
		}
		got, err := d.Demo(ctx, setup, wanted(m), c.MethodArgs)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.Name(), err)
		}
		subjects = append(subjects, got...)
	}
	if len(subjects) == 0 {
		return nil, nil, fmt.Errorf("--variants: none selected")
	}
	return subjects, requests, nil
}
