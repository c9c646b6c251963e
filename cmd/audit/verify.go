package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
)

// runVerify audits models trained elsewhere (verify.VerifySamples) and writes a report.
func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		in  pipeline.VerifyInputs
		out string
	)
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&in.SpecPath, "spec", "", "the audit spec: the claim, confidence, power target and seed (default: none; --epsilon and --delta give the claim, and without one verify measures)")
	var claimEps, claimDelta float64 // pointed to when given (pipeline.SpecSettings)
	audit.Var(fs, &claimEps, audit.Param{Name: "epsilon", Usage: "the claimed ε, with --delta (over the spec's claim.epsilon); without a claim verify measures what the models show and gives no verdict", Kind: audit.Number, Range: audit.EpsilonParam.Range})
	audit.Var(fs, &claimDelta, audit.Param{Name: "delta", Usage: "the claimed δ (over the spec's claim.delta); alone, without a claim, the δ a measurement bounds ε at (default 1e-6)", Kind: audit.Number, Range: audit.DeltaParam.Range})
	name := fs.String("name", "", "the audited subject's name in the report (default: the spec's method name, else \"unnamed method\")")
	fs.StringVar(&in.Unlearned, "unlearned", "", "unlearned models: a folder of model files (.npy, .npz, .safetensors, .pt, .pth, .csv) or one matrix, a model a row (required)")
	fs.StringVar(&in.Retrained, "retrained", "", "models retrained without the deleted records, as --unlearned (default: the toolkit retrains them by the spec's recipe)")
	audit.Var(fs, &in.Workers, audit.WorkersParam)
	audit.Var(fs, &in.MaxValues, pipeline.MaxValuesParam)
	fs.StringVar(&out, "out", "audit-report", "directory for report.json and the other formats (default: the spec's outputs.dir, else audit-report)")
	formats := fs.String("formats", "", formatsUsage+" (default: the spec's outputs.formats)")
	asJSON := fs.Bool("json", false, "print the report's JSON on stdout instead of the summary table")
	fs.StringVar(&in.OneRun, "one-run", "", "a canary plan from audit canaries: --unlearned holds every canary's score under the one published model, in plan order (the spec's \"scores\" says loss or confidence)")
	fs.StringVar(&in.References, "references", "", "with --scores: reference models' scores on the same records and their IN/OUT masks, an .npz with arrays \"in\" (1: the reference trained on the record, for U-LiRA trained on it and then unlearned it; 0: not) and \"scores\": their U-LiRA aggregate joins the game's statistics")
	fs.StringVar(&in.Holdout, "holdout", "", "with --scores: the same models' scores on held-out records never trained on (models × records, the models in --unlearned's order): the first unlearned model's membership of the deleted records against them (AUC, TPR at FPR 0.1 % and 1 %, ROC, per-record plot), a measurement that never decides")
	var force bool
	forceFlag(fs, &force)
	tensor := fs.String("tensor", "", "the tensors of each model file to audit, one name or a comma-separated list read in the order given (.npz, .safetensors, .pt, .pth; default: every floating-point tensor, in name order)")
	var date string
	dateFlag(fs, &date)
	quiet := fs.Bool("quiet", false, "no progress line on stderr (it is shown only when stderr is a terminal)")
	fs.BoolVar(&in.Scores, "scores", false, "--unlearned and --retrained are per-example scores (a matrix of models × examples: losses, logits or confidences), the route for deep models")
	fs.StringVar(&in.PrenoiseUnlearned, "prenoise-unlearned", "", "with a spec that declares \"noise\" (Δ and σ): the unlearned models' parameters before the noise, as --unlearned and in its order; --unlearned holds the published ones")
	fs.StringVar(&in.PrenoiseRetrained, "prenoise-retrained", "", "with --prenoise-unlearned: the retrained models' parameters before the noise, row i the retrain the proof couples with unlearned model i")
	fs.StringVar(&in.Utility, "utility", "", "an .npz of per-record values on the forget, retain and test sets, arrays named SIDE_SET_loss or SIDE_SET_correct (SIDE unlearned or retrained, SET forget, retain or test; models × records, the models in --unlearned's and --retrained's order; correct is 1 or 0): the report gives both sides' loss and accuracy, a measurement with no verdict")
	fs.BoolVar(&in.UtilityFromData, "utility-from-data", false, "with the spec's data and deletes and linear models: their logistic loss and accuracy on the deleted records (forget) and the others (retain), computed from the weights; a measurement with no verdict")
	var rankP string
	audit.Var(fs, &rankP, audit.Param{Name: "rank-p", Usage: "the p-value fewer models than a game needs are ranked by: conservative, (below + 1 + ties)/(N + 1), which no seed moves, or randomised, seeded tie-breakers (default: the spec's rank_p, else conservative)",
		Kind: audit.Choice, Choices: spec.RankPChoices})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit verify [--spec FILE | --epsilon E --delta D] [--name NAME] --unlearned DIR|FILE [--retrained DIR|FILE] [--scores [--references FILE] [--holdout FILE]] [--one-run PLAN] [--prenoise-unlearned FILE --prenoise-retrained FILE] [--utility FILE] [--out DIR]\n\nAudits models produced elsewhere against a claim: the spec's (it needs only a claim; its\nmethod may be your own label) or --epsilon and --delta's. Without a claim it measures what\nthe models show (ε lower bound, μ, AUC, TPR at low FPR): no verdict, exit 0.\n\nEight or more models a side, of any sizes, play one distinguishing game over a\npre-registered family of statistics (parameter directions and spread; with the spec's data\nand deletes the deleted records' loss, confidence and gradient), stating its power; how\nlarge an ε a count can show at all, and what it can PASS, is audit plan --table's answer\n(at ε = 1, δ = 1e-3, 16 a side can never FAIL the claim; 23 can). Fewer unlearned\nmodels, one included, are ranked among the retrains by the deleted records' mean loss: that\ncan show a violation, never that the claim holds (audit plan --models: the retrains needed).\nWith --scores the files are per-record scores (models × deleted records, .npy, .npz or\nCSV; the spec's \"scores\" says loss or confidence); --references adds the U-LiRA aggregate\nof your reference models, --holdout one model's membership against held-out records.\n--one-run judges one training run with canaries drawn by audit canaries.\n--prenoise-unlearned and --prenoise-retrained (the parameters before the noise; the\nspec's \"noise\" declares Δ and σ) judge a pipeline that publishes with Gaussian noise on\nits certificate, its pre-noise gaps and its noise; --utility adds forget, retain and test\nloss and accuracy, measured.\n\nWithout --retrained the toolkit retrains by the spec's recipe: its data, deletes and one\nvariant of a method it implements.\n\nExamples:\n  audit verify --spec claim.json --unlearned unlearned/ --retrained retrained/\n  audit verify --epsilon 1 --delta 1e-3 --name my-sgd --scores --unlearned scores_u.npy --retrained scores_r.npy\n  audit verify --scores --unlearned scores_u.npy --retrained scores_r.npy\n  audit verify --spec claim.json --scores --unlearned scores_u.npz --retrained scores_r.npz\n  audit verify --spec claim.json --scores --unlearned one_model.npy --retrained retrains.npy --holdout holdout.npy\n  audit verify --spec claim.json --one-run canaries.json --unlearned canary_losses.npy\n  audit verify --spec noisy.json --unlearned published/ --retrained published_r/ --prenoise-unlearned pre_u.npy --prenoise-retrained pre_r.npy\n  audit verify --spec recipe.json --unlearned model.npy\n\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if *tensor != "" {
		if in.Tensors, err = artifact.ParseTensorNames(*tensor); err != nil {
			return fmt.Errorf("verify: --tensor %w", err)
		}
	}
	if in.Date, err = auditDate("verify", date); err != nil {
		return err
	}
	if in.Spec = spec.DefaultSpec(); in.SpecPath != "" {
		if in.Spec, err = loadSpec("verify", in.SpecPath); err != nil {
			return err
		}
	}
	set := cliflag.Set(fs)
	claim := pipeline.SpecSettings{Epsilon: cliflag.IfGiven(set, "epsilon", &claimEps), Delta: cliflag.IfGiven(set, "delta", &claimDelta),
		Name: cliflag.IfGiven(set, "name", name), RankP: cliflag.IfGiven(set, "rank-p", &rankP)}
	if err := claim.ApplyTo(in.Spec, in.SpecPath); err != nil {
		return err
	}
	in.CommandLine, in.Version, in.Progress = resultFlags(fs), version, progress.New(stderr, !*quiet && isTerminal(stderr))
	if err := in.Check(); err != nil {
		return err
	}
	specOutputs(set, in.Spec, &out, formats)
	outFormats, err := pipeline.Formats(*formats) // refused before any work
	if err != nil {
		return err
	}
	if err := pipeline.CheckOut("verify", out, pipeline.ReportNames(), in.Inputs()...); err != nil {
		return err
	}
	od, err := pipeline.OpenOut("verify", out, force)
	if err != nil {
		return err
	}
	defer od.Close()
	// the previous report goes when this run starts: a failed verify leaves none that
	// looks like its result
	if err := od.Remove(pipeline.ReportNames()...); err != nil {
		return pipeline.OutError("verify", err)
	}
	rep, err := pipeline.Verify(ctx, in)
	if err != nil {
		return err
	}
	if err := pipeline.WriteReport(od, rep, outFormats, nil); err != nil {
		return pipeline.OutError("verify", err)
	}
	if err := pipeline.Emit(stdout, rep, out, outFormats, *asJSON); err != nil {
		return err
	}
	if !*asJSON {
		pipeline.WriteUtility(stdout, rep)
	}
	if !in.Spec.Claimed {
		return nil // a measurement has no verdict: exit 0
	}
	return verdictErr(verdict.Verdict(rep.Summary.Verdict))
}
