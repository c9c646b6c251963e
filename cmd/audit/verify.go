package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"gonum.org/v1/gonum/mat"
)

// runVerify audits models trained elsewhere (audit.VerifySamples) and writes a report.
func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var specPath, unlearnedPath, retrainedPath, out string
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&specPath, "spec", "", "the audit spec: the claim, confidence, power target and seed (default: none; --epsilon and --delta give the claim, and without one verify measures)")
	var claimEps, claimDelta float64
	audit.Var(fs, &claimEps, audit.Param{Name: "epsilon", Usage: "the claimed ε, with --delta (over the spec's claim.epsilon); without a claim verify measures what the models show and gives no verdict", Kind: audit.Number, Range: audit.EpsilonParam.Range})
	audit.Var(fs, &claimDelta, audit.Param{Name: "delta", Usage: "the claimed δ (over the spec's claim.delta); alone, without a claim, the δ a measurement bounds ε at (default 1e-6)", Kind: audit.Number, Range: audit.DeltaParam.Range})
	name := fs.String("name", "", "the audited subject's name in the report (default: the spec's method name, else \"unnamed method\")")
	fs.StringVar(&unlearnedPath, "unlearned", "", "unlearned models: a folder of model files (.npy, .npz, .safetensors, .pt, .pth, .csv) or one matrix, a model a row (required)")
	fs.StringVar(&retrainedPath, "retrained", "", "models retrained without the deleted records, as --unlearned (default: the toolkit retrains them by the spec's recipe)")
	var workers int
	audit.Var(fs, &workers, audit.WorkersParam)
	var data pipeline.DataSource
	audit.Var(fs, &data.MaxValues, pipeline.MaxValuesParam)
	fs.StringVar(&out, "out", "audit-report", "directory for report.json and the other formats (default: the spec's outputs.dir, else audit-report)")
	formats := fs.String("formats", "", formatsUsage+" (default: the spec's outputs.formats)")
	asJSON := fs.Bool("json", false, "print the report's JSON on stdout instead of the summary table")
	oneRun := fs.String("one-run", "", "a canary plan from audit canaries: --unlearned holds every canary's score under the one published model, in plan order (the spec's \"scores\" says loss or confidence)")
	references := fs.String("references", "", "with --scores: reference models' scores on the same records and their IN/OUT masks, an .npz with arrays \"in\" (1: the reference trained on the record, for U-LiRA trained on it and then unlearned it; 0: not) and \"scores\": their U-LiRA aggregate joins the game's statistics")
	holdout := fs.String("holdout", "", "with --scores: the same models' scores on held-out records never trained on (models × records, the models in --unlearned's order): the first unlearned model's membership of the deleted records against them (AUC, TPR at FPR 0.1 % and 1 %, ROC, per-record plot), a measurement that never decides")
	var force bool
	forceFlag(fs, &force)
	tensor := fs.String("tensor", "", "the tensors of each model file to audit, one name or a comma-separated list read in the order given (.npz, .safetensors, .pt, .pth; default: every floating-point tensor, in name order)")
	var date string
	dateFlag(fs, &date)
	quiet := fs.Bool("quiet", false, "no progress line on stderr (it is shown only when stderr is a terminal)")
	scores := fs.Bool("scores", false, "--unlearned and --retrained are per-example scores (a matrix of models × examples: losses, logits or confidences), the route for deep models")
	var prenoise prenoiseFlags
	prenoise.register(fs)
	var utility utilityFlags
	utility.register(fs)
	var rankP string
	audit.Var(fs, &rankP, audit.Param{Name: "rank-p", Usage: "the p-value fewer models than a game needs are ranked by: conservative, (below + 1 + ties)/(N + 1), which no seed moves, or randomised, seeded tie-breakers (default: the spec's rank_p, else conservative)",
		Kind: audit.Choice, Choices: audit.RankPChoices})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit verify [--spec FILE | --epsilon E --delta D] [--name NAME] --unlearned DIR|FILE [--retrained DIR|FILE] [--scores [--references FILE] [--holdout FILE]] [--one-run PLAN] [--prenoise-unlearned FILE --prenoise-retrained FILE] [--utility FILE] [--out DIR]\n\nAudits models produced elsewhere against a claim: the spec's (it needs only a claim; its\nmethod may be your own label) or --epsilon and --delta's. Without a claim it measures what\nthe models show (ε lower bound, μ, AUC, TPR at low FPR): no verdict, exit 0.\n\nEight or more models a side, of any sizes, play one distinguishing game over a\npre-registered family of statistics (parameter directions and spread; with the spec's data\nand deletes the deleted records' loss, confidence and gradient), stating its power; how\nlarge an ε a count can show at all, and what it can PASS, is audit plan --table's answer\n(at ε = 1, δ = 1e-3, 16 a side can never FAIL the claim; 23 can). Fewer unlearned\nmodels, one included, are ranked among the retrains by the deleted records' mean loss: that\ncan show a violation, never that the claim holds (audit plan --models: the retrains needed).\nWith --scores the files are per-record scores (models × deleted records, .npy, .npz or\nCSV; the spec's \"scores\" says loss or confidence); --references adds the U-LiRA aggregate\nof your reference models, --holdout one model's membership against held-out records.\n--one-run judges one training run with canaries drawn by audit canaries.\n--prenoise-unlearned and --prenoise-retrained (the parameters before the noise; the\nspec's \"noise\" declares Δ and σ) judge a pipeline that publishes with Gaussian noise on\nits certificate, its pre-noise gaps and its noise; --utility adds forget, retain and test\nloss and accuracy, measured.\n\nWithout --retrained the toolkit retrains by the spec's recipe: its data, deletes and one\nvariant of a method it implements.\n\nExamples:\n  audit verify --spec claim.json --unlearned unlearned/ --retrained retrained/\n  audit verify --epsilon 1 --delta 1e-3 --name my-sgd --scores --unlearned scores_u.npy --retrained scores_r.npy\n  audit verify --scores --unlearned scores_u.npy --retrained scores_r.npy\n  audit verify --spec claim.json --scores --unlearned scores_u.npz --retrained scores_r.npz\n  audit verify --spec claim.json --scores --unlearned one_model.npy --retrained retrains.npy --holdout holdout.npy\n  audit verify --spec claim.json --one-run canaries.json --unlearned canary_losses.npy\n  audit verify --spec noisy.json --unlearned published/ --retrained published_r/ --prenoise-unlearned pre_u.npy --prenoise-retrained pre_r.npy\n  audit verify --spec recipe.json --unlearned model.npy\n\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	bar := progress.New(stderr, !*quiet && isTerminal(stderr)) // the long phases' progress
	reference.MaxValues = data.MaxValues                       // the one memory cap, for every file verify reads
	switch {
	case unlearnedPath == "":
		return usagef("verify: --unlearned is required")
	case *references != "" && !*scores:
		return usagef("verify: --references needs --scores: they are scores of reference models on the same records")
	case *holdout != "" && !*scores:
		return usagef("verify: --holdout needs --scores: it holds scores on held-out records, compared with --unlearned's scores on the deleted ones")
	case *oneRun != "" && (retrainedPath != "" || *scores):
		return usagef("verify: --one-run reads one model's canary scores from --unlearned; it takes neither --retrained nor --scores")
	case retrainedPath == "" && specPath == "" && *oneRun == "":
		return usagef("verify: give --retrained models, or --spec: without retrained models the toolkit retrains by a spec's recipe (its data, deletes and method)")
	case retrainedPath == "" && *scores:
		return usagef("verify: --scores needs --retrained scores: the toolkit retrains linear models by a recipe, not the model that scored them")
	case *tensor != "" && (*scores || *oneRun != ""):
		return usagef("verify: --tensor picks the weights of model files; --scores and --one-run read matrices of scores")
	}
	if err := prenoise.check(retrainedPath, *scores, *oneRun); err != nil {
		return err
	}
	var tensors []string
	if *tensor != "" {
		var err error
		if tensors, err = artifact.ParseTensorNames(*tensor); err != nil {
			return usageError{fmt.Errorf("verify: --tensor %w", err)}
		}
	}
	date, err := auditDate("verify", date)
	if err != nil {
		return err
	}
	s := audit.DefaultSpec()
	if specPath != "" {
		if s, err = loadSpec("verify", specPath); err != nil {
			return err
		}
	}
	set := setFlags(fs)
	var eps, delta *float64
	if set["epsilon"] {
		eps = &claimEps
	}
	if set["delta"] {
		delta = &claimDelta
	}
	if err := s.SetClaim(specPath, eps, delta); err != nil {
		var se *audit.SpecError
		if errors.As(err, &se) {
			return usageError{err}
		}
		return usageError{fmt.Errorf("verify: %w", err)}
	}
	if set["name"] {
		if err := s.SetName(*name); err != nil {
			return usageError{fmt.Errorf("verify: %w", err)}
		}
	}
	// without a claim (the defaults run the toolkit's own methods, and verify assumes none)
	// the routes measure: their findings become measurements and no verdict is given
	measure := !s.Claimed
	if measure && *oneRun != "" {
		return usagef("verify: --one-run judges a claim: give --epsilon and --delta, or a spec with claim.epsilon and claim.delta")
	}
	if measure && prenoise.set() {
		return usagef("verify: --prenoise-unlearned checks a certificate against a claim: give --epsilon and --delta, or a spec with claim.epsilon and claim.delta")
	}
	if prenoise.set() && specPath == "" { // refused before any file is read
		return usagef("verify: --prenoise-unlearned checks the certificate a spec declares: give --spec FILE with \"noise\": {\"sensitivity\": Δ, \"sigma\": σ}")
	}
	if setFlags(fs)["rank-p"] {
		s.RandomisedRank, _ = audit.ParseRankP(rankP) // one of the choices the flag accepts
	}
	if err := utility.check(*scores, *oneRun, s, specPath); err != nil {
		return err
	}
	specOutputs(setFlags(fs), s, &out, formats)
	outFormats, err := parseFormats(*formats) // refused before any work
	if err != nil {
		return err
	}
	read := []outdir.Input{{Flag: "--spec", Path: specPath}, {Flag: "--unlearned", Path: unlearnedPath}, {Flag: "--retrained", Path: retrainedPath},
		{Flag: "--references", Path: *references}, {Flag: "--holdout", Path: *holdout}, {Flag: "--one-run", Path: *oneRun},
		{Flag: "--prenoise-unlearned", Path: prenoise.unlearned}, {Flag: "--prenoise-retrained", Path: prenoise.retrained}, {Flag: "--utility", Path: utility.file},
		{Flag: "data.file", Path: s.Data.File}, {Flag: "data.labels", Path: s.Data.Labels}}
	if err := checkOut("verify", out, reportNames(), read...); err != nil {
		return err
	}
	od, err := openOut("verify", out, force)
	if err != nil {
		return err
	}
	defer od.Close()
	// the previous report goes when this run starts: a failed verify leaves none that
	// looks like its result
	if err := od.Remove(reportNames()...); err != nil {
		return outErr("verify", err)
	}
	readFiles := func(path string) (*mat.Dense, []string, error) { return artifact.LoadSampleTensors(path, tensors) }
	if *scores || *oneRun != "" {
		readFiles = artifact.LoadScores
	}
	// a folder of large models takes seconds to read: a signal ends the wait
	load := func(path string) (*mat.Dense, []string, error) {
		type files struct {
			m     *mat.Dense
			names []string
		}
		r, err := interruptible(ctx, func() (files, error) {
			m, names, err := readFiles(path)
			return files{m, names}, err
		})
		return r.m, r.names, err
	}
	unlearned, uFiles, err := load(unlearnedPath)
	if err != nil {
		if *scores { // a bad value is named by its model and record
			err = s.NameCell(err, "", true)
		}
		return usageError{fmt.Errorf("verify: --unlearned: %w", err)}
	}
	if _, w := unlearned.Dims(); !*scores && *oneRun == "" {
		if err := s.CheckModels(specPath, "--unlearned", unlearnedPath, w); err != nil {
			return usageError{fmt.Errorf("verify: %w", err)}
		}
	}
	var (
		claim    audit.Claim
		findings []audit.Finding
		rFiles   []string
		inputs   []reports.Input
		what     string
		ds       *pipeline.Data // the spec's data, when read
		n, d     = unlearned.Dims()
	)
	var utilRetrained *mat.Dense // the retrained models or scores, for the utility
	if *oneRun != "" {
		plan, err := audit.ReadCanaryPlan(*oneRun)
		if err != nil {
			return usageError{fmt.Errorf("verify: --one-run: %w", err)}
		}
		r, c := unlearned.Dims()
		if r != 1 && c != 1 {
			return usageError{fmt.Errorf("verify: --unlearned %s: %d × %d scores; --one-run wants one score a canary (%d)", unlearnedPath, r, c, plan.Canaries)}
		}
		claim, findings, err = audit.VerifyOneRun(plan, unlearned.RawMatrix().Data, s)
		if err != nil {
			return usageError{fmt.Errorf("verify: --unlearned %s: %w", unlearnedPath, err)}
		}
		what = fmt.Sprintf("one training run: the published model's scores on %d canaries, included and deleted by the plan drawn from seed %d", plan.Canaries, plan.Seed)
		in, err := reports.HashFile("canary plan", *oneRun)
		if err != nil {
			return usageError{fmt.Errorf("verify: %w", err)}
		}
		inputs = append(inputs, in)
	} else if retrainedPath == "" {
		if err := s.RequireMethod(specPath); err != nil {
			return usageError{fmt.Errorf("verify: without --retrained the toolkit retrains by the spec's recipe: %w", err)}
		}
		data.SetFromSpec(s, specPath)
		if ds, err = data.Load(ctx, s.Seed); err != nil {
			return err
		}
		recipe, err := audit.NewRecipe(s, ds.Set)
		if err != nil {
			return usageError{fmt.Errorf("verify: %s: %w", specPath, err)}
		}
		var ret *mat.Dense
		sctx, stop := bar.Steps(ctx, "verify: retraining by the recipe and playing the game") // a trials-needed search shows its settling's ETA
		claim, findings, ret, err = audit.VerifyAgainstRecipe(sctx, unlearned, recipe, s, workers)
		stop()
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return err
			}
			return usageError{err}
		}
		utilRetrained = ret
		m, _ := ret.Dims()
		what = fmt.Sprintf("%d unlearned model(s) of %d parameters trained elsewhere, against %d retrains by the spec's recipe (%s on %s)", n, d, m, recipe.Audited.Subject.Name(), ds.Description)
	} else {
		retrained, files, err := load(retrainedPath)
		if err != nil {
			if *scores {
				err = s.NameCell(err, "", true)
			}
			return usageError{fmt.Errorf("verify: --retrained: %w", err)}
		}
		rFiles = files
		utilRetrained = retrained
		var noisyWhat string
		switch {
		case prenoise.set(): // published with Gaussian noise: the parameters before it decide
			var dset *reference.Dataset
			if s.Data.File != "" {
				data.SetFromSpec(s, specPath)
				if ds, err = data.Load(ctx, s.Seed); err != nil {
					return err
				}
				dset = ds.Set
			}
			var pre []reports.Input
			sctx, stop := bar.Steps(ctx, "verify: the noise checks and the game on the published models")
			claim, findings, pre, noisyWhat, err = prenoise.verify(sctx, load, unlearned, retrained, dset, s, specPath)
			stop()
			inputs = append(inputs, pre...)
		case *scores:
			if *references != "" {
				if s.References, err = audit.LoadReferences(*references); err != nil {
					return usageError{fmt.Errorf("verify: --references: %w", err)}
				}
				rFiles = append(rFiles, *references)
			}
			// the held-out scores are read and paired before the game, which takes seconds:
			// a file that does not fit is refused at once
			if err := s.CheckScoreColumns("verify: --unlearned", unlearnedPath, unlearned); err != nil {
				return usageError{err}
			}
			var h *mat.Dense
			if *holdout != "" {
				if h, _, err = artifact.LoadScores(*holdout); err != nil {
					return usageError{fmt.Errorf("verify: --holdout: %w", s.NameCell(err, "held-out record", false))}
				}
				if err := audit.CheckHoldout(unlearned, h); err != nil {
					return usageError{fmt.Errorf("verify: --holdout %s: %w", *holdout, err)}
				}
			}
			sctx, stop := bar.Steps(ctx, "verify: the game on the scores and its power")
			claim, findings, err = audit.VerifyScores(sctx, unlearned, retrained, s)
			stop()
			if err == nil && *holdout != "" {
				f, err := audit.VerifyHoldout(unlearned, h, s)
				if err != nil {
					return usageError{fmt.Errorf("verify: --holdout %s: %w", *holdout, err)}
				}
				findings = append(findings, f)
				rFiles = append(rFiles, *holdout)
			}
		case s.Data.File != "": // the deleted records' losses, computed from the weights
			data.SetFromSpec(s, specPath)
			if ds, err = data.Load(ctx, s.Seed); err != nil {
				return err
			}
			sctx, stop := bar.Steps(ctx, "verify: the game on the models and its power")
			claim, findings, err = audit.VerifyModels(sctx, unlearned, retrained, ds.Set, s)
			stop()
		default:
			sctx, stop := bar.Steps(ctx, "verify: the game on the models and its power")
			claim, findings, err = audit.VerifyModels(sctx, unlearned, retrained, nil, s)
			stop()
		}
		if err != nil {
			return usageError{nonFiniteModel(err, "--unlearned", unlearnedPath, uFiles, "--retrained", retrainedPath, files)}
		}
		nr, _ := retrained.Dims()
		what = fmt.Sprintf("%d unlearned and %d retrained models of %d parameters, trained elsewhere", n, nr, d)
		if ds != nil {
			what += "; the deleted records' losses computed on " + ds.Description
		}
		if *scores {
			what = fmt.Sprintf("per-record scores of %d unlearned and %d retrained models on %d records, computed elsewhere", n, nr, d)
		}
		if noisyWhat != "" {
			what = noisyWhat
		}
	}
	util, utilInputs, err := utility.measure(unlearned, utilRetrained, *oneRun != "", ds, s)
	if err != nil {
		return err
	}
	if measure {
		claim, findings = audit.MeasurementClaim(claim, s.Delta), audit.AsMeasurements(findings, s.Delta, s.Confidence)
	}
	for _, f := range append([]string{specPath}, append(uFiles, rFiles...)...) {
		if f == "" {
			continue // no spec
		}
		role := "unlearned model"
		switch {
		case f == specPath:
			role = "spec"
		case f == *holdout:
			role = "held-out scores"
		case f == *references:
			role = "reference scores"
		case slices.Contains(rFiles, f):
			role = "retrained model"
		}
		in, err := reports.HashFile(role, f)
		if err != nil {
			return usageError{fmt.Errorf("verify: %w", err)}
		}
		inputs = append(inputs, in)
	}
	rep := &reports.Report{
		Schema: reports.Schema, Tool: reports.Tool{Name: "unlearnaudit", Version: version}, Command: "verify", CommandLine: resultFlags(fs),
		Seed: s.Seed, Trials: n, Confidence: reports.Number(s.Confidence), Inputs: inputs,
		Data: reports.Data{Description: what}, Date: date,
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
	if err := writeReport(od, rep, outFormats, nil); err != nil {
		return outErr("verify", err)
	}
	if err := emit(stdout, rep, out, outFormats, *asJSON); err != nil {
		return err
	}
	if !*asJSON {
		printUtility(stdout, rep)
	}
	if measure {
		return nil // a measurement has no verdict: exit 0
	}
	return verdictErr(audit.Verdict(rep.Summary.Verdict))
}

// nonFiniteModel names the file of the model whose statistic overflowed (an
// *audit.NonFiniteError): the model's own file when a folder gave one a model, else the
// flag's file and the model's row. Other errors are returned as they are.
func nonFiniteModel(err error, uFlag, uPath string, uFiles []string, rFlag, rPath string, rFiles []string) error {
	var ne *audit.NonFiniteError
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
