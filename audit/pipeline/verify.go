package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
	"github.com/unlearnaudit/unlearnaudit/internal/wait"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"gonum.org/v1/gonum/mat"
)

// VerifyInputs are what audit verify audits: models (or per-record scores) trained
// elsewhere, and what they are judged against. The route follows from which are given:
// OneRun (a canary plan and one model's canary scores), else no Retrained (retrain by the
// spec's recipe), else PrenoiseUnlearned (a release with Gaussian noise), else Scores
// (References and Holdout optional), else models (the spec's data, if it names one, gives
// the deleted records' losses). Utility and UtilityFromData add a measured utility.
type VerifyInputs struct {
	// Spec holds the claim (none: the routes measure and give no verdict), confidence,
	// seed, data, deletes and recipe; spec.DefaultSpec() when there is no spec file.
	Spec     *spec.Spec
	SpecPath string // the spec's file, "" for none: errors name its fields

	Unlearned, Retrained string // files or folders (artifact.LoadSampleTensors, or LoadScores with Scores or OneRun)
	Scores               bool   // Unlearned and Retrained are models × records scores
	References, Holdout  string // with Scores: reference scores (an .npz), held-out scores
	OneRun               string // a canary plan (audit canaries)

	PrenoiseUnlearned, PrenoiseRetrained string // the parameters before the noise

	Utility         string // an .npz of per-record values (verify.LoadUtility)
	UtilityFromData bool   // the linear models' loss and accuracy on the spec's data

	Tensors   []string // the tensors of each model file to read; none: every floating-point one
	Workers   int      // the recipe's retrains' workers (0: GOMAXPROCS)
	MaxValues int      // the cap on one matrix of every file verify reads (reference.Limits); 0 is the default cap

	CommandLine []string      // the command line that decides the report
	Version     string        // the tool's version
	Date        string        // the audit date the report states
	Progress    *progress.Bar // the long phases' progress, if set

	utility []verify.UtilityInput // the Utility file's arrays, read and checked by Check
}

// prenoise says whether the pre-noise route was asked for.
func (in *VerifyInputs) prenoise() bool {
	return in.PrenoiseUnlearned != "" || in.PrenoiseRetrained != ""
}

// Check refuses inputs in combinations no route reads, and reads and checks the Utility
// file, before any long work (Verify calls it too; its model counts are checked after,
// against the models read).
func (in *VerifyInputs) Check() error {
	switch {
	case in.Spec == nil:
		return errors.New("verify: no spec (spec.DefaultSpec() when there is no spec file)")
	case in.Unlearned == "":
		return errors.New("verify: --unlearned is required")
	case in.References != "" && !in.Scores:
		return errors.New("verify: --references needs --scores: they are scores of reference models on the same records")
	case in.Holdout != "" && !in.Scores:
		return errors.New("verify: --holdout needs --scores: it holds scores on held-out records, compared with --unlearned's scores on the deleted ones")
	case in.OneRun != "" && (in.Retrained != "" || in.Scores):
		return errors.New("verify: --one-run reads one model's canary scores from --unlearned; it takes neither --retrained nor --scores")
	case in.Retrained == "" && in.SpecPath == "" && in.OneRun == "":
		return errors.New("verify: give --retrained models, or --spec: without retrained models the toolkit retrains by a spec's recipe (its data, deletes and method)")
	case in.Retrained == "" && in.Scores:
		return errors.New("verify: --scores needs --retrained scores: the toolkit retrains linear models by a recipe, not the model that scored them")
	case len(in.Tensors) > 0 && (in.Scores || in.OneRun != ""):
		return errors.New("verify: --tensor picks the weights of model files; --scores and --one-run read matrices of scores")
	}
	if err := in.checkPrenoise(); err != nil {
		return err
	}
	// without a claim (the defaults run the toolkit's own methods, and verify assumes none)
	// the routes measure: their findings become measurements and no verdict is given
	measure := !in.Spec.Claimed
	if measure && in.OneRun != "" {
		return errors.New("verify: --one-run judges a claim: give --epsilon and --delta, or a spec with claim.epsilon and claim.delta")
	}
	if measure && in.prenoise() {
		return errors.New("verify: --prenoise-unlearned checks a certificate against a claim: give --epsilon and --delta, or a spec with claim.epsilon and claim.delta")
	}
	if in.prenoise() && in.SpecPath == "" { // refused before any file is read
		return errors.New("verify: --prenoise-unlearned checks the certificate a spec declares: give --spec FILE with \"noise\": {\"sensitivity\": Δ, \"sigma\": σ}")
	}
	return in.checkUtility()
}

// Verify reads verify's inputs, runs the route they call for, measures the utility asked
// for, and returns the report, summarized: one subject, "verify/" and the spec's subject
// name. Without a claim its findings are measurements and its verdict says so.
func Verify(ctx context.Context, in VerifyInputs) (*reports.Report, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	if in.Progress == nil {
		in.Progress = progress.New(io.Discard, false)
	}
	s := in.Spec
	measure := !s.Claimed
	data := DataSource{MaxValues: in.MaxValues}
	lim := in.limits()
	// what was read of each side's first model (artifact.LoadSampleParts), by its path: for
	// the report and a refusal to name, without reading a file again
	partsRead := map[string][]string{}
	readFiles := func(path string) (*mat.Dense, []string, []string, error) {
		return artifact.LoadSampleParts(path, in.Tensors, lim)
	}
	if in.Scores || in.OneRun != "" {
		readFiles = func(path string) (*mat.Dense, []string, []string, error) {
			m, names, err := artifact.LoadScores(path, lim)
			return m, names, nil, err
		}
	}
	// a folder of large models takes seconds to read: a signal ends the wait
	load := func(path string) (*mat.Dense, []string, error) {
		type files struct {
			m            *mat.Dense
			names, parts []string
		}
		r, err := wait.For(ctx, func() (files, error) {
			m, names, parts, err := readFiles(path)
			return files{m, names, parts}, err
		})
		partsRead[path] = r.parts
		return r.m, r.names, err
	}
	unlearned, uFiles, err := load(in.Unlearned)
	if err != nil {
		if in.Scores { // a bad value is named by its model and record
			err = s.NameCell(err, "", true)
		}
		return nil, fmt.Errorf("verify: --unlearned: %w", err)
	}
	if _, w := unlearned.Dims(); !in.Scores && in.OneRun == "" {
		if err := s.CheckModels(in.SpecPath, "--unlearned", in.Unlearned, w); err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
	}
	var (
		claim    verdict.Claim
		findings []verdict.Finding
		rFiles   []string
		inputs   []reports.Input
		what     string
		ds       *Data // the spec's data, when read
		n, d     = unlearned.Dims()
	)
	var utilRetrained *mat.Dense // the retrained models or scores, for the utility
	if in.OneRun != "" {
		plan, err := canary.ReadCanaryPlan(in.OneRun)
		if err != nil {
			return nil, fmt.Errorf("verify: --one-run: %w", err)
		}
		r, c := unlearned.Dims()
		if r != 1 && c != 1 {
			return nil, fmt.Errorf("verify: --unlearned %s: %d × %d scores; --one-run wants one score a canary (%d)", in.Unlearned, r, c, plan.Canaries)
		}
		claim, findings, err = canary.VerifyOneRun(plan, unlearned.RawMatrix().Data, s)
		if err != nil {
			return nil, fmt.Errorf("verify: --unlearned %s: %w", in.Unlearned, err)
		}
		what = fmt.Sprintf("one training run: the published model's scores on %d canaries, included and deleted by the plan drawn from seed %d", plan.Canaries, plan.Seed)
		h, err := reports.HashFile("canary plan", in.OneRun)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		inputs = append(inputs, h)
	} else if in.Retrained == "" {
		if err := s.RequireMethod(in.SpecPath); err != nil {
			return nil, fmt.Errorf("verify: without --retrained the toolkit retrains by the spec's recipe: %w", err)
		}
		data.SetFromSpec(s, in.SpecPath)
		if ds, err = data.Load(ctx, s.Seed); err != nil {
			return nil, err
		}
		recipe, err := verify.NewRecipe(ctx, s, ds.Set)
		if err != nil {
			return nil, fmt.Errorf("verify: %s: %w", in.SpecPath, err)
		}
		var ret *mat.Dense
		sctx, stop := in.Progress.Steps(ctx, "verify: retraining by the recipe and playing the game") // a trials-needed search shows its settling's ETA
		claim, findings, ret, err = verify.VerifyAgainstRecipe(sctx, unlearned, recipe, s, in.Workers)
		stop()
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil, err
			}
			return nil, err
		}
		utilRetrained = ret
		m, _ := ret.Dims()
		what = fmt.Sprintf("%d unlearned model(s) of %d parameters trained elsewhere, against %d retrains by the spec's recipe (%s on %s)", n, d, m, recipe.Audited.Subject.Name(), ds.Description)
	} else {
		retrained, files, err := load(in.Retrained)
		if err != nil {
			if in.Scores {
				err = s.NameCell(err, "", true)
			}
			return nil, fmt.Errorf("verify: --retrained: %w", err)
		}
		rFiles = files
		utilRetrained = retrained
		if _, dr := retrained.Dims(); !in.Scores && dr != d {
			// each side's first model by its parts, so that a stray array (a loss curve
			// saved beside the weights) or a missing one is seen at once
			return nil, fmt.Errorf("verify: unlearned models have %d parameters (%s), retrained ones %d (%s)%s",
				d, partsOf(uFiles[0], partsRead[in.Unlearned]), dr, partsOf(files[0], partsRead[in.Retrained]), spec.TransposedHint(unlearned, retrained))
		}
		var noisyWhat string
		switch {
		case in.prenoise(): // published with Gaussian noise: the parameters before it decide
			var dset *reference.Dataset
			if s.Data.File != "" {
				data.SetFromSpec(s, in.SpecPath)
				if ds, err = data.Load(ctx, s.Seed); err != nil {
					return nil, err
				}
				dset = ds.Set
			}
			var pre []reports.Input
			sctx, stop := in.Progress.Steps(ctx, "verify: the noise checks and the game on the published models")
			claim, findings, pre, noisyWhat, err = in.verifyNoisy(sctx, load, unlearned, retrained, dset)
			stop()
			inputs = append(inputs, pre...)
		case in.Scores:
			if in.References != "" {
				if s.References, err = checks.LoadReferences(in.References, in.limits()); err != nil {
					return nil, fmt.Errorf("verify: --references: %w", err)
				}
				rFiles = append(rFiles, in.References)
			}
			// the held-out scores are read and paired before the game, which takes seconds:
			// a file that does not fit is refused at once
			if err := s.CheckScoreColumns("verify: --unlearned", in.Unlearned, unlearned); err != nil {
				return nil, err
			}
			var h *mat.Dense
			if in.Holdout != "" {
				if h, _, err = artifact.LoadScores(in.Holdout, in.limits()); err != nil {
					return nil, fmt.Errorf("verify: --holdout: %w", s.NameCell(err, "held-out record", false))
				}
				if err := checks.CheckHoldout(unlearned, h); err != nil {
					return nil, fmt.Errorf("verify: --holdout %s: %w", in.Holdout, err)
				}
			}
			sctx, stop := in.Progress.Steps(ctx, "verify: the game on the scores and its power")
			claim, findings, err = verify.VerifyScores(sctx, unlearned, retrained, s)
			stop()
			if err == nil && in.Holdout != "" {
				f, err := verify.VerifyHoldout(unlearned, h, s)
				if err != nil {
					return nil, fmt.Errorf("verify: --holdout %s: %w", in.Holdout, err)
				}
				findings = append(findings, f)
				rFiles = append(rFiles, in.Holdout)
			}
		case s.Data.File != "": // the deleted records' losses, computed from the weights
			data.SetFromSpec(s, in.SpecPath)
			if ds, err = data.Load(ctx, s.Seed); err != nil {
				return nil, err
			}
			sctx, stop := in.Progress.Steps(ctx, "verify: the game on the models and its power")
			claim, findings, err = verify.VerifyModels(sctx, unlearned, retrained, ds.Set, s)
			stop()
		default:
			sctx, stop := in.Progress.Steps(ctx, "verify: the game on the models and its power")
			claim, findings, err = verify.VerifyModels(sctx, unlearned, retrained, nil, s)
			stop()
		}
		if err != nil {
			return nil, nonFiniteModel(err, "--unlearned", in.Unlearned, uFiles, "--retrained", in.Retrained, files)
		}
		nr, _ := retrained.Dims()
		what = fmt.Sprintf("%d unlearned and %d retrained models of %d parameters, trained elsewhere", n, nr, d)
		if !in.Scores {
			// what was compared, in the order read: an archive's arrays go in name order
			// (coef before intercept), which a reader of the report can check against the
			// spec's data
			switch parts := trimParts(uFiles[0], partsRead[in.Unlearned]); {
			case len(parts) == 1:
				what += fmt.Sprintf("; the first, %s, read as %s", uFiles[0], parts[0])
			case len(parts) > 1:
				what += fmt.Sprintf("; the first, %s, read as %s, in that order", uFiles[0], strings.Join(parts, ", "))
			}
		}
		if ds != nil {
			what += "; the deleted records' losses computed on " + ds.Description
		}
		if in.Scores {
			what = fmt.Sprintf("per-record scores of %d unlearned and %d retrained models on %d records, computed elsewhere", n, nr, d)
		}
		if noisyWhat != "" {
			what = noisyWhat
		}
	}
	util, utilInputs, err := in.measureUtility(unlearned, utilRetrained, ds)
	if err != nil {
		return nil, err
	}
	if measure {
		claim, findings = spec.MeasurementClaim(claim, s.Delta), spec.AsMeasurements(findings, s.Delta, s.Confidence)
	}
	for _, f := range append([]string{in.SpecPath}, append(uFiles, rFiles...)...) {
		if f == "" {
			continue // no spec
		}
		role := "unlearned model"
		switch {
		case f == in.SpecPath:
			role = "spec"
		case f == in.Holdout:
			role = "held-out scores"
		case f == in.References:
			role = "reference scores"
		case slices.Contains(rFiles, f):
			role = "retrained model"
		}
		h, err := reports.HashFile(role, f)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		inputs = append(inputs, h)
	}
	rep := &reports.Report{
		Schema: reports.Schema, Tool: Tool(in.Version), Command: "verify", CommandLine: in.CommandLine,
		Seed: s.Seed, Trials: n, Confidence: table.Number(s.Confidence), Inputs: inputs,
		Data: reports.Data{Description: what}, Date: in.Date,
	}
	if ds != nil {
		rep.Inputs = append(slices.Clone(ds.Inputs), rep.Inputs...)
		rep.Data.Rows, rep.Data.Features, rep.Data.Preprocessing = ds.Set.Len(), ds.Set.Dim(), ds.Preprocessing
		for _, id := range s.Deletes {
			rep.Data.Requests = append(rep.Data.Requests, reference.DeleteID(id).String())
		}
	}
	rep.Subjects = append(rep.Subjects, reports.NewSubject("verify/"+s.SubjectName(), claim, findings))
	rep.Subjects[len(rep.Subjects)-1].Utility = util
	rep.Inputs = append(rep.Inputs, utilInputs...)
	rep.Summarize()
	return rep, nil
}

// nonFiniteModel names the file of the model whose statistic overflowed (an
// *checks.NonFiniteError): the model's own file when a folder gave one a model, else the
// flag's file and the model's row. Other errors are returned as they are.
func nonFiniteModel(err error, uFlag, uPath string, uFiles []string, rFlag, rPath string, rFiles []string) error {
	var ne *checks.NonFiniteError
	if !errors.As(err, &ne) {
		return err
	}
	flag, path, files := uFlag, uPath, uFiles
	if ne.Side == "retrained" {
		flag, path, files = rFlag, rPath, rFiles
	}
	if len(files) > 1 && ne.Model < len(files) {
		return fmt.Errorf("%s %s: %w", flag, files[ne.Model], err)
	}
	return fmt.Errorf("%s %s (row %d): %w", flag, path, ne.Model, err)
}

// limits are the caps MaxValues sets, for every file verify reads.
func (in *VerifyInputs) limits() reference.Limits { return reference.Limits{MaxValues: in.MaxValues} }

// partsOf names a model file by its parts as they were read (trimParts), for an error
// about its size: the path alone if none were.
func partsOf(path string, layout []string) string {
	if parts := trimParts(path, layout); len(parts) > 0 {
		return path + ": " + strings.Join(parts, ", ")
	}
	return path
}

// trimParts is a model file's layout as read (artifact.LoadSampleParts: each array or
// tensor with its shape and type) without the file's name on each, the first eight and a
// count of the rest.
func trimParts(path string, layout []string) []string {
	out := make([]string, 0, min(len(layout), 9))
	for _, l := range layout[:min(len(layout), 8)] {
		// an archive's arrays are named file:array, a one-array file by the file
		out = append(out, strings.TrimPrefix(strings.TrimPrefix(l, path+":"), path+" "))
	}
	if len(layout) > 8 {
		out = append(out, fmt.Sprintf("… %d more", len(layout)-8))
	}
	return out
}
