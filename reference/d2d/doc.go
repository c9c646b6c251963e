// Package d2d implements Descent-to-Delete (Neel, Roth, Sharifi-Malvajerdi 2020):
// perturbed projected gradient descent that learns, serves a sequence of additions and
// deletions by a few warm-started gradient steps each, and publishes every model with
// Gaussian noise calibrated so that the published model is (ε, δ)-indistinguishable from a
// retrain from scratch.
//
// # Modes
//
// A Mode names the variant and the theorem it certifies:
//
//   - SecretState (Theorem 3.1, strongly convex): each update warm starts from the
//     previous pre-noise model, which must then be kept secret;
//   - Perfect (Theorem 3.2): warm starts from the previous published model, so nothing
//     secret is kept, at the price of a minimum budget I_min (Params.PerfectMinBudget) and
//     a few extra iterations per update;
//   - ConvexStrong and ConvexWeak (Theorems 3.4 and 3.5): convex losses, made strongly
//     convex by an added ridge term (RegLambdaStrong, RegLambdaWeak), with strong or weak
//     unlearning; weak unlearning runs T_i = i^{2ξ}·I iterations (WeakIterations).
//
// ParseMode reads a mode's name as the CLI and reports print it.
//
// # Parameters: the theorems as pure functions
//
// Params holds the declared constants (Lipschitz, smoothness, strong convexity on the ball
// of radius R), n, d, the budget I and the target (ε, δ). Its methods are the parameter
// rules of the theorems, each citing its source: Gamma and StepSize, LearnIterations and
// UpdateIterations, SecretSensitivity, SecretRadius and SecretSigma, PerfectRadius,
// PerfectSigma, PerfectUpdateIterations and PerfectCertifiedEpsilon. The convex variants' rules are functions of their own
// (RegGamma, RegularizedConstants, SigmaRegStrong, SigmaRegWeak, WeakRho,
// WeakSigmaConstant). The spec's golden values are in testdata and every one is tested.
//
// NewPlan validates a configuration (Validate names the offending field) and derives the
// noise; a Plan answers what each round needs: Sigma, Sensitivity and Rho, the iterations
// (LearnIterations, UpdateIterations), the certified radius at round i (RadiusAt), the
// mechanism's δ (MechanismDelta), and the σ the proof needs under the corrected readings
// (CertifiedSigma).
//
// # Running it
//
// Learn and Model.Update run Algorithms 1–3; a Model reports its Round, its Data, the
// Published and Secret models and the GradientEvaluations spent. Descend is the bare
// projected descent both use. Recipe is the learner as a retrain.Recipe, so the oracle
// reruns exactly this procedure from scratch with the randomness the comparison shares:
//
//	rng := reference.Streams{Seed: 1, Trial: 0}
//	plan, err := d2d.NewPlan(d2d.SecretState, params)
//	m, err := d2d.Learn(ctx, plan, loss, data, rng.Rand("publish/0"))
//	err = m.Update(ctx, reference.DeleteID(42), rng.Rand("publish/1"))
//	released := m.Published()
//
// # Distributed descent (Section 4)
//
// Perturbed distributed descent keeps K partitions of B records each, drawn by reservoir
// sampling keyed by record ID (ReservoirAdd, ReservoirDelete), and updates only the
// partitions a request touches. DistParams and NewDistPlan give its sizes (DistSizes,
// DistRealSizes), iterations (DistLearnIterationsReal, DistUpdateBudget), sensitivity and
// σ (DistSensitivity, DistSigma) and copies for a failure probability (DistCopies);
// LearnDistributed runs it and returns a Distributed model, whose CoupledRetrain is the
// retrain from scratch the proof of Theorem 4.5 compares with; Selection says how its
// published copy is chosen. The paper's update schedule has a proof gap (spec d2d §3.9):
// Schedule selects PaperSchedule or the spec's FixedSchedule (the default), and
// ReservoirChangedBound is Lemma 4.3's count of changed partitions.
//
// # Where the paper is wrong
//
// Where the spec flags a formula, both readings are implemented and a Reading selects one:
// PerfectSensitivity returns the tight Δ and the printed one of Theorem 3.2's proof
// (the theorem's σ and I are correct under the tight reading); RegLambdaStrongAsPrinted
// is Theorem 3.4's regulariser with the printed exponent; WeakSigmaConstant gives
// Theorem 3.5's corrected and printed constants. The audit (package d2daudit) reports
// both, so a reader sees the difference.
package d2d
