package d2daudit

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// Experiments is the accuracy experiment of spec d2d §5 (d2d-accuracy).
func (Method) Experiments() []audit.Experiment {
	return []audit.Experiment{{
		Name: "d2d-accuracy",
		Summary: "excess empirical risk of every Descent-to-Delete variant against exact ERM\n" +
			"along add/delete sequences of up to 1,000 updates, on MNIST 3-vs-8 and breast\n" +
			"cancer, with the theorems' accuracy bounds beside the measurements",
		About:  "Runs every Descent-to-Delete variant along one random add/delete sequence per dataset and\nmeasures the excess empirical risk of the published model against exact ERM, with the\ntheorems' accuracy bounds beside it (Neel et al. 2020; spec d2d §5). Writes DIR/d2d-accuracy.json,\nDIR/d2d-accuracy.md and one figure per dataset. Exit 1 if a bound or the steady-state check fails.",
		Params: audit.SettingParams(new(accuracySettings).settings()),
		Run:    runAccuracy,
	}}
}

// accuracySettings are d2d-accuracy's settings, declared once (settings) for its flags
// and its run: most of them are the AccuracyConfig's fields.
type accuracySettings struct {
	Config             AccuracyConfig
	Datasets, Schedule string
	Only, Formats      []string
}

func (s *accuracySettings) settings() []audit.Setting {
	return []audit.Setting{
		audit.StringSetting(&s.Datasets, audit.DatasetsParam),
		audit.ListSetting(&s.Only, audit.Param{Name: "only", Usage: "datasets to run, comma-separated", Default: "mnist-3v8,breast-cancer"}),
		audit.ListSetting(&s.Config.Variants, audit.Param{Name: "variants", Usage: "D2D variants, comma-separated", Default: strings.Join(AccuracyVariants, ",")}),
		audit.StringSetting(&s.Schedule, audit.Param{Name: "schedule", Usage: "distributed descent's update budget: fixed (spec §3.9.4) or paper (Thm 4.5)", Default: "fixed", Kind: audit.Choice, Choices: []string{"fixed", "paper"}}),
		audit.ListSetting(&s.Formats, audit.FormatsParam),
		audit.Uint64Setting(&s.Config.Seed, audit.SeedParam),
		audit.IntSetting(&s.Config.Workers, audit.WorkersParam),
		audit.IntSetting(&s.Config.Updates, audit.Param{Name: "updates", Usage: "sequence length of the strong variants (strongly-convex, perfect, convex-strong)", Default: "1000", Unit: "updates", Kind: audit.Integer, Range: "[1, 1e6]"}),
		audit.IntSetting(&s.Config.WeakUpdates, audit.Param{Name: "weak-updates", Usage: "sequence length of convex-weak, whose i-th update costs i²·I iterations", Default: "20", Unit: "updates", Kind: audit.Integer, Range: "[1, 1000]"}),
		audit.IntSetting(&s.Config.DistUpdates, audit.Param{Name: "dist-updates", Usage: "sequence length of distributed descent, whose update costs n·T_i gradients", Default: "100", Unit: "updates", Kind: audit.Integer, Range: "[1, 1e5]"}),
		audit.IntSetting(&s.Config.Budget, audit.Param{Name: "iterations", Usage: "iteration budget I of the single-machine variants (perfect mode uses at least I_min)", Default: "10", Unit: "gradient steps", Kind: audit.Integer, Range: "[1, 1e6]"}),
		audit.FloatSetting(&s.Config.DistBudget, audit.Param{Name: "dist-iterations", Usage: "iteration budget I of distributed descent", Default: "2", Kind: audit.Number, Range: "(0, 1e6]"}),
		audit.FloatSetting(&s.Config.Xi, audit.Param{Name: "xi", Usage: "ξ of distributed descent: B = n^ξ bootstrap slots", Default: "1.2", Kind: audit.Number, Range: "[1, 1.3333333333333333]"}),
		audit.FloatSetting(&s.Config.Lambda, audit.Param{Name: "lambda", Usage: "L2 weight λ of the strongly convex logistic loss", Default: "0.05", Kind: audit.Number, Range: "(0, inf)"}),
		audit.FloatSetting(&s.Config.Epsilon, audit.Param{Name: "epsilon", Usage: "target ε", Default: "1", Kind: audit.Number, Range: "(0, inf)"}),
		audit.FloatSetting(&s.Config.Delta, audit.Param{Name: "delta", Usage: "target δ", Default: "1e-6", Kind: audit.Number, Range: "(0, 1)"}),
		audit.FloatSetting(&s.Config.Beta, audit.Param{Name: "beta", Usage: "failure probability of the accuracy bounds (the false-failure rate of each bound check)", Default: "1e-3", Kind: audit.Number, Range: "(0, 1)"}),
		audit.IntSetting(&s.Config.Draws, audit.Param{Name: "draws", Usage: "fresh publications averaged at each checkpoint (at least 2)", Default: "100", Kind: audit.Integer, Range: "[2, 1e6]"}),
	}
}

// accuracyDataset is a data set of the datasets folder prepared for the accuracy experiment.
type accuracyDataset struct {
	description string
	prep        []string
	inputs      []reports.Input
	ds          *reference.Dataset
}

// accuracyDatasets are the real datasets the experiment runs on, by name, read from the
// datasets folder (FindDatasets).
var accuracyDatasets = map[string]func(dir string) (*accuracyDataset, error){
	"mnist-3v8": func(dir string) (*accuracyDataset, error) {
		images := filepath.Join(dir, "mnist-t10k", "t10k-images-idx3-ubyte.gz")
		ds, labels, err := reference.LoadIDXClasses(images, 3, 8, reference.Limits{})
		if err != nil {
			return nil, err
		}
		return &accuracyDataset{description: "MNIST test set (t10k), digits 3 and 8", ds: ds,
			prep:   []string{"kept digits 3 (→ +1) and 8 (→ −1)", "pixels scaled to [0, 1]", "rows scaled to Euclidean norm 1"},
			inputs: []reports.Input{{Role: "images", Path: images}, {Role: "labels", Path: labels}}}, nil
	},
	"breast-cancer": func(dir string) (*accuracyDataset, error) {
		path := filepath.Join(dir, "sklearn", "breast_cancer.csv")
		ds, err := reference.LoadSklearnCSV(path, reference.Limits{})
		if err != nil {
			return nil, err
		}
		return &accuracyDataset{description: "Wisconsin diagnostic breast cancer (scikit-learn copy)", ds: ds.BinaryLabels(1).Standardize().NormalizeRows(),
			prep:   []string{"label 1 (benign) → +1, 0 → −1", "columns standardised to mean 0, variance 1", "rows scaled to Euclidean norm 1"},
			inputs: []reports.Input{{Role: "data", Path: path}}}, nil
	},
}

func runAccuracy(ctx context.Context, env audit.ExperimentEnv, args audit.Args) (*reports.Reproduction, error) {
	var s accuracySettings
	if err := audit.ReadSettings(args, s.settings()); err != nil {
		return nil, err
	}
	c := s.Config
	var err error
	for _, v := range []struct {
		name string
		val  int
	}{{"updates", c.Updates}, {"weak-updates", c.WeakUpdates}, {"dist-updates", c.DistUpdates}, {"iterations", c.Budget}} {
		if v.val < 1 {
			return nil, fmt.Errorf("--%s %d: want at least 1", v.name, v.val)
		}
	}
	if c.Draws < 2 {
		return nil, fmt.Errorf("--draws %d: want at least 2 (the growth check needs their spread)", c.Draws)
	}
	switch {
	case !(c.Lambda > 0):
		return nil, fmt.Errorf("--lambda %v: want λ > 0", c.Lambda)
	case !(c.Beta > 0 && c.Beta < 1):
		return nil, fmt.Errorf("--beta %v: want a probability in (0, 1)", c.Beta)
	case !(c.Epsilon > 0):
		return nil, fmt.Errorf("--epsilon %v: want ε > 0", c.Epsilon)
	case !(c.Delta > 0 && c.Delta < 1):
		return nil, fmt.Errorf("--delta %v: want δ in (0, 1)", c.Delta)
	}
	if c.Schedule, err = d2d.ParseSchedule(s.Schedule); err != nil {
		return nil, fmt.Errorf("--schedule: %w", err)
	}
	for _, v := range c.Variants {
		if !slices.Contains(AccuracyVariants, v) {
			return nil, fmt.Errorf("--variants: %s: want some of %s", clip.Quote(v), strings.Join(AccuracyVariants, ","))
		}
	}
	formats, err := reports.ParseFormats(s.Formats)
	if err != nil {
		return nil, err
	}
	names := s.Only
	for _, n := range names {
		if accuracyDatasets[n] == nil {
			return nil, fmt.Errorf("--only: unknown dataset %s: want mnist-3v8 and/or breast-cancer", clip.Quote(n))
		}
	}
	if len(c.Variants) == 0 || len(names) == 0 {
		return nil, fmt.Errorf("--variants and --only must name at least one each")
	}
	dir, err := reference.FindDatasets(s.Datasets)
	if err != nil {
		return nil, err
	}

	const title = "Descent-to-Delete: accuracy along update sequences"
	rep := reports.NewReproduction(env.Version, "d2d-accuracy", title)
	rep.Seed = c.Seed
	rep.Settings = []table.Value{{Name: "ε", Value: table.Number(c.Epsilon)}, {Name: "δ", Value: table.Number(c.Delta)},
		{Name: "β", Value: table.Number(c.Beta)}, {Name: "λ", Value: table.Number(c.Lambda)}, {Name: "I", Value: table.Number(c.Budget)},
		{Name: "I (distributed)", Value: table.Number(c.DistBudget)}, {Name: "ξ (distributed)", Value: table.Number(c.Xi)},
		{Name: "updates (strong)", Value: table.Number(c.Updates)}, {Name: "updates (weak)", Value: table.Number(c.WeakUpdates)},
		{Name: "updates (distributed)", Value: table.Number(c.DistUpdates)}, {Name: "draws per checkpoint", Value: table.Number(c.Draws)}}
	rep.Notes = []string{
		"Strongly convex variants and distributed descent run L2-logistic regression with weight λ on the ball of radius R = max‖x‖/(2λ), which holds every minimiser; the convex variants run unregularised logistic regression on the same ball and add the ridge term their theorems set.",
		"Each bound check fails by chance with probability at most β. The convex variants' bounds use the Lipschitz form L·r + (λ/2)R², since their minimisers lie on the sphere where the paper's (M/2)r² step does not apply; Theorem 4.5 gives only a big-O rate, drawn with constants 1 and not checked.",
		"Distributed descent uses the " + c.Schedule.String() + " schedule.",
		fmt.Sprintf("Each accuracy-bound check states its slack (bound ÷ the largest excess risk measured); one with %d× or more could catch only an excess risk that many times the one seen, so it is reported, not judged, and the run is decided by the checks left (the steady-state checks, and any bound within %d×).", reports.SlackLimit, reports.SlackLimit),
	}
	for _, name := range names {
		ad, err := accuracyDatasets[name](dir)
		if err != nil {
			return nil, err
		}
		inputs, err := reports.HashInputs(ad.inputs)
		if err != nil {
			return nil, err
		}
		rep.Inputs = append(rep.Inputs, inputs...)
		if env.Progress != nil {
			fmt.Fprintf(env.Progress, "d2d-accuracy: %s (%d records × %d features)…\n", name, ad.ds.Len(), ad.ds.Dim())
		}
		cfg := c
		cfg.Name, cfg.Data = name, ad.ds
		res, err := Accuracy(ctx, cfg)
		if err != nil {
			return nil, err
		}
		rep.Datasets = append(rep.Datasets, reproducedDataset(ad, res))
	}
	rep.ReportSlack(func(check string) bool { return strings.HasSuffix(check, "/bound") })
	for i, d := range rep.Datasets {
		rep.PlotDataset(i, "d2d-accuracy-"+d.Name, d.Figure(title), formats)
	}
	return rep, nil
}

// reproducedDataset converts the experiment's result into the report model.
func reproducedDataset(ad *accuracyDataset, res *AccuracyResult) reports.ReproducedDataset {
	out := reports.ReproducedDataset{Name: res.Dataset, Description: ad.description, Preprocessing: ad.prep, Rows: res.Pool,
		Features: res.Dim, Initial: res.N0, Adds: res.Adds, Deletes: res.Deletes}
	for _, loss := range slices.Sorted(maps.Keys(res.ZeroModelExcess)) {
		out.References = append(out.References, table.Value{Name: "θ = 0, " + loss, Value: table.Number(res.ZeroModelExcess[loss])})
	}
	for _, c := range res.Curves {
		rc := reports.Curve{Method: c.Variant, Theorem: c.Theorem, Loss: c.Loss, Iterations: c.Iterations, Updates: c.Updates,
			Sigma: table.Number(c.Sigma), Bound: table.Number(c.Bound), BoundChecked: c.BoundChecked, BoundForm: c.BoundForm, PaperBound: table.Number(c.PaperBound),
			BoundRadius: table.Number(c.BoundRadius), Growth: table.Number(c.Growth),
			UpdateGradients: table.Number(c.UpdateGradients), RetrainGradients: table.Number(c.RetrainGradients)}
		for _, p := range c.Points {
			rc.Points = append(rc.Points, reports.CurvePoint{Round: p.Round, N: p.N, Excess: table.Number(p.Excess),
				ExcessMean: table.Number(p.ExcessMean), ExcessSD: table.Number(p.ExcessSD), SecretExcess: table.Number(p.SecretExcess), Distance: table.Number(p.Distance),
				OnBoundary: p.OnBoundary, Gradients: p.Gradients})
		}
		for _, f := range c.Findings {
			rc.Findings = append(rc.Findings, reports.NewFinding(f))
		}
		out.Curves = append(out.Curves, rc)
	}
	return out
}
