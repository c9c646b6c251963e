package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/wait"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// LoadSamples reads the samples the flag --flagName names as verify --scores reads its
// matrices (artifact.LoadScores): .npy, .npz of one array, CSV, or a folder of model
// files, chosen by extension. The wait ends when ctx does (a 20 MB CSV takes seconds): the
// error then wraps ctx's, so that an interrupted load is told from a bad file.
func LoadSamples(ctx context.Context, flagName, path string) (*mat.Dense, error) {
	if path == "" {
		return nil, fmt.Errorf("--%s is required", flagName)
	}
	m, err := wait.For(ctx, func() (*mat.Dense, error) {
		m, _, err := artifact.LoadScores(path, reference.Limits{})
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flagName, err)
	}
	return m, nil
}

// loadAB loads the samples of --a, then of --b.
func loadAB(ctx context.Context, aPath, bPath string) (a, b *mat.Dense, err error) {
	if a, err = LoadSamples(ctx, "a", aPath); err != nil {
		return nil, nil, err
	}
	if b, err = LoadSamples(ctx, "b", bPath); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// EstimateQuestion is audit estimate's question: the files of samples A and B (A and B,
// LoadSamples' layouts) and the estimator to ask.
type EstimateQuestion struct {
	A, B       string
	Method     string           // estimate.ByName's name
	Covariance string           // estimate.ParseCovariance's name; it sets Options.Covariance
	Options    estimate.Options // the rest of the estimator's settings
}

// EstimateFiles loads q's samples and estimates D_α(A‖B) (Estimate), its errors naming
// the files. The computation runs to its end once begun (wait.For); when ctx ended
// meanwhile, the answer is dropped and ctx's error returned, so nothing is printed after
// an interruption.
func EstimateFiles(ctx context.Context, q EstimateQuestion) (*EstimateAnswer, error) {
	a, b, err := loadAB(ctx, q.A, q.B)
	if err != nil {
		return nil, err
	}
	if q.Options.Covariance, err = estimate.ParseCovariance(q.Covariance); err != nil {
		return nil, fmt.Errorf("--covariance: %w", err)
	}
	out, err := wait.For(ctx, func() (*EstimateAnswer, error) { return Estimate(q.Method, a, b, q.Options) })
	if err != nil {
		// the estimators speak of samples A and B: say which files they are
		return nil, fmt.Errorf("estimate: %w (A is %s, B is %s)", err, q.A, q.B)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// EpsilonQuestion is audit epsilon's question: the files of scores under models of kinds
// A and B (one row per model, one column per example, as many columns each), the
// threshold strategy's name (threshold.Parse) and the game's δ and confidence (its
// Strategy is set from the name).
type EpsilonQuestion struct {
	A, B     string
	Strategy string
	Game     epsilon.Game
}

// EpsilonFiles loads q's scores and bounds ε from below (Epsilon), refusing files that
// score different examples; like EstimateFiles, it returns ctx's error rather than an
// answer computed after ctx ended.
func EpsilonFiles(ctx context.Context, q EpsilonQuestion) (*EpsilonAnswer, error) {
	var err error
	if q.Game.Strategy, err = threshold.Parse(q.Strategy); err != nil {
		return nil, fmt.Errorf("--strategy: %w", err)
	}
	a, b, err := loadAB(ctx, q.A, q.B)
	if err != nil {
		return nil, err
	}
	_, k := a.Dims()
	if _, kb := b.Dims(); k != kb {
		return nil, fmt.Errorf("epsilon: %s scores %d examples per model, %s scores %d", q.A, k, q.B, kb)
	}
	out, err := wait.For(ctx, func() (*EpsilonAnswer, error) { return Epsilon(a, b, q.Game) })
	if err != nil {
		return nil, fmt.Errorf("epsilon: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ParseCounts reads audit plan --table's list: comma-separated counts of models per side,
// each in [checks.MinEmpiricalTrials, trials.MaxTrials]; the error quotes the list and the
// first count refused.
func ParseCounts(list string) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < checks.MinEmpiricalTrials || n > trials.MaxTrials {
			return nil, fmt.Errorf("--table %s: %s: want counts of models per side in [%d, %d], comma-separated", list, clip.Quote(f), checks.MinEmpiricalTrials, trials.MaxTrials)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// ParseIDs reads --delete's comma-separated list of record IDs ("" : none), quoting the
// first that is not one.
func ParseIDs(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var ids []int64
	for _, f := range strings.Split(s, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--delete: %s is not a record ID", clip.Quote(f))
		}
		ids = append(ids, id)
	}
	return ids, nil
}
