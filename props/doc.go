// Package props holds rapid generators and reusable property suites for unlearning
// methods. Each suite checks a method against what its theorem promises and against exact
// retraining (package retrain), and each is written so that you can point it at your own
// implementation of the same algorithm.
//
// # Generators
//
// Dataset draws small datasets (4 to 64 rows, up to 5 features on a grid in [−1, 1]),
// Loss an L2-regularised logistic or ridge loss, Updates a request sequence mixing
// deletions and additions of fresh records, SGLUProblem an SGLU deployment's constants.
// Values are drawn as scaled integers, not raw floats: rapid's float generator leans to
// extreme values, and an audit's properties are about ordinary data.
//
//	rapid.Check(t, func(t *rapid.T) {
//		ds := props.Dataset(props.DataConfig{}).Draw(t, "data")
//		loss := props.Loss(false).Draw(t, "loss")
//		us := props.Updates(t, ds, props.SequenceConfig{})
//		...
//	})
//
// # Your own unlearner
//
// CheckUnlearner audits any unlearning method from `go test`: give it as an Unlearner —
// an Unlearn function (learn, serve the deletions, publish) and a Retrain function, both
// taking their randomness from the trial's reference.Streams — with its (ε, δ) claim. It
// checks that trials re-run bit for bit, runs them, and plays the distinguishing game on
// the published models: a violation shown fails the test with the ε it shows; a game
// without power is logged as INCONCLUSIVE, never passed off as a PASS.
//
//	func TestMyUnlearner(t *testing.T) {
//		props.CheckUnlearner(t, props.Unlearner{Name: "mine", Unlearn: myUnlearn, Retrain: myRetrain,
//			Epsilon: 1, Delta: 1e-5}, data, deletes, 400, 1)
//	}
//
// # Models on disk
//
// CheckSaved audits models another tool trained and saved — a folder of .npy, .npz,
// .safetensors, CSV or model-card files, or one matrix with a model a row, for the
// unlearned and for the retrained side, as `audit verify` reads them — with the same game
// and the same reporting. Trial i pairs the i-th model of each side (audit.SavedSubject),
// so a test of a training pipeline can assert on the files it wrote:
//
//	func TestExportedModelsForget(t *testing.T) {
//		props.CheckSaved(t, "pipeline", "out/unlearned", "out/retrained", 1, 1e-5, 1)
//	}
//
// An INCONCLUSIVE game is logged with the models a side that would decide and leaves the
// test passing; pass FailInconclusive() to any of the three checks to fail it instead.
//
// # From your own module
//
// The module is not on a proxy: clone it and point your module at the clone, then tidy
// (docs/props-in-your-tests.md walks through it, and a test runs every step):
//
//	go mod edit -require=github.com/unlearnaudit/unlearnaudit@v0.0.0 -replace=github.com/unlearnaudit/unlearnaudit=../unlearnaudit
//	go mod tidy
//
// # Descent-to-Delete
//
// D2DTrajectory(mode) is a whole property: it draws data, a loss and requests, plans the
// mode's noise and iterations, and runs CheckD2DRun, which learns, serves every request
// and checks each round's deterministic inequalities against the exact minimiser
// retrain.Minimize computes: the retrain within (2L/(m n))γ^I of θ*, the unlearned secret
// model within the certified radius of θ* and within Δ of the retrain, and the gradient
// cost of every update. D2DAdaptiveTrajectory lets the requests depend on the published
// models (spec d2d §4.4.9); DistributedTrajectory covers perturbed distributed descent;
// Contraction, SigmaMonotone and Sensitivity check the arithmetic the proofs rest on.
//
//	func TestMyD2D(t *testing.T) { rapid.Check(t, props.D2DTrajectory(d2d.SecretState)) }
//
// # SGLU: checks for your own PNSGD
//
// A NoisyEpochs is any implementation of SGLU's projected noisy mini-batch gradient
// descent on fixed cyclic batches: K epochs from a start, its noise drawn from a given
// *rand.Rand. ReferencePNSGD wraps this toolkit's. The checks run it twice on one noise
// stream — a coupling — and compare with the paper's lemmas:
//
//   - CheckPNSGDContraction: two starts end at most c^{Kn/b} times as far apart;
//   - CheckPNSGDReplacement: one record replaced ends at most Lemma 3.5's W∞ apart.
//
// Each fails with the numbers that broke; this package's tests plant bugs — a summed
// instead of averaged gradient, batches swept in reverse, noise that depends on the data —
// and see each caught.
//
//	run := func(ctx context.Context, start []float64, data *reference.Dataset, K int, r *rand.Rand) ([]float64, error) {
//		return myPNSGD(ctx, start, data, K, r) // your implementation
//	}
//	props.CheckPNSGDContraction(t, run, problem, data, 2, x0, y0, seed)
//
// QuadraticPNSGD is the exact oracle: on a quadratic loss the laws are Gaussian, so the
// divergence between unlearning and retraining is computed, not estimated.
//
// # Hessian-Free unlearning: checks for your own Stage II and release
//
// An HFStatistics is any implementation of HF's Stage II on a reference/hf trajectory.
// CheckHFStatistics holds every statistic to what it is, the derivative of the final model
// in the record's weight (the trajectory replayed by Reweighted, central differences);
// HFStatisticsProperty runs it on problems HFProblem draws (softmax, MLP, least squares
// and LinearLoss, the exact case). CheckHFRelease checks a Gaussian release against the
// retrain's with the exact laws: noise N(0, σ²I) centred on the unlearned model, the best
// linear test's AUC below Φ(μ/√2), δ(ε) within the target — each at false-failure 1e-4.
// This package's tests plant the official code's order, a 1e-3 scale error, a lost epoch,
// half the noise and the printed N(0, σI), and see each caught.
//
//	rapid.Check(t, props.HFStatisticsProperty(myStageII))
//
// # SAFE: checks for your own streaming forgetter
//
// SAFEProblem draws a streaming-forgetting problem (spec safe §4.1 scaled down): classes
// of Gaussian points, a softmax model with its exact minimiser w₀, a deterministic SAFE
// configuration and a stream of requests, random or one class after another. A
// SAFEFactory builds any SAFE implementation seen through safe.Streamer; ReferenceSAFE is
// this toolkit's. CheckSAFERun holds it, through its published models alone, to the
// algorithm and the theory: every round one step of length √W/(K√T) from w₀ (I6), the
// whole deleted set in one request giving the same model (I7), repeated records refused
// (I9), and no published model below the exact retrain's streaming risk (R1).
// CheckSAFEInvariants holds reference/safe's kept state to recomputation from the data
// after every round (I1–I3: the retention gradient, the class Gaussians, the label
// ratios). This package's tests plant a SAFE that steps from its previous model and see it
// caught.
//
//	rapid.Check(t, props.SAFEProperty(mySAFE))
//
// # OLU: checks for your own online learner-unlearner
//
// A PassiveOLU is any implementation of passive online learning–unlearning (Algorithm 1)
// with olu.Passive's signature. OLUProblem draws an instance — strongly convex quadratics,
// a step schedule, requests whose deleted rounds come before any noise, so that the
// outputs' laws are exactly Gaussian — and CheckPassiveOLU holds the implementation to the
// algorithm and Theorem 1 through its runs: no request is online descent, the canonical
// index convention, every σ_i at least what the valid contraction needs, releases in the
// domain, the outputs' exact divergence from Definition 2's reference within the
// accountant, and repeated requests refused. CheckPassiveRegret holds its mean regret to
// Theorem 2's corrected bound where the theorem's hypotheses hold. This package's tests
// plant the paper's γ, too little noise, σ of the wrong request, repeats accepted and a
// Lipschitz constant ten times too small, and see each caught.
//
//	rapid.Check(t, props.OLUProperty(myPassiveOLU))
//	rapid.Check(t, props.PassiveRegretProperty(myPassiveOLU))
//
// # What the tests of this package add
//
// The package's own tests run these properties and more against the reference
// implementations: spec d2d §4, sglu §4, hf §4, safe §4 and olu §4 property lists (hf's regime properties R1–R4 and every edge case of its §4.6 as a named test), edge cases (deleting the last
// record, duplicates, long adversarial sequences), privacy controls that must fail, and
// Monte Carlo comparisons of unlearning with retraining. Every property is run with
// rapid's random seeds, in CI too; a failure is a bug to fix, never a seed to pin.
package props
