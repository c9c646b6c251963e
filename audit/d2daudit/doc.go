// Package d2daudit audits Descent-to-Delete deployments (reference/d2d).
//
// # A subject and its checks
//
// New turns a Setup — mode, loss, data, requests, declared constants and target — into a
// Subject the audit engine can sample, after checking every request against the data (an
// unknown ID is named with the request it came in). A trial learns, serves the requests
// and publishes (Unlearned), and retrains from scratch on the final data and publishes
// (Retrained); Claim gives the certificate with every step of its derivation, Plan the
// derived noise and iterations, Final the data after every request, and
// Fingerprint the configuration a checkpoint is keyed by. Outside Perfect mode neither
// run's descent reads its noise (Algorithm 3 adds it to a copy), so a subject descends
// once, on its first trial, and every trial publishes those secret models with its own
// noise: the bits a whole run gives, for microseconds a trial. Check then runs four
// families of checks on the trials:
//
//   - certificate: σ recomputed from the declared constants; the declared Lipschitz
//     constant against the exact largest gradient norm on Θ over every record that
//     appears; smoothness and strong convexity against the loss;
//   - implementation: the unlearned secret model within the radius of the exact minimiser
//     the proof needs (Theorem 3.1, Eq. 3; Theorem 3.2, Eq. 13), within Δ of the retrain,
//     and the retrain within the learner's radius (Eq. 2);
//   - release: the Gaussian release check of the published laws against the claim;
//   - empirical: the distinguishing game on the published models, and the membership
//     attack on the deleted records (checks.MembershipRelease), each with its power.
//
// The claim requires the first three (the audit runs the method, so it holds its state);
// the game is supporting evidence, PASS only with 80 % power against a 2× violation
// (audit.CheckOptions.PowerAgainst), and a violation it shows fails the subject.
//
//	s, err := d2daudit.New(ctx, d2daudit.Setup{Mode: d2d.SecretState, Loss: loss, Data: d0, Updates: reqs, Params: p})
//	trials, err := trials.Engine{}.Run(ctx, s, seed, 200)
//	findings, err := d2daudit.Check(ctx, s, trials, audit.CheckOptions{})
//	verdict := verdict.Decide(s.Claim(), findings)
//
// Distributed descent (Theorem 4.5) has its own subject: NewDist, DistSubject and
// CheckDist, which adds the corrected accounting of the theorem's proof gap
// (DistCorrectedDelta, DistCorrectedEpsilon) as a certificate check, so the paper's
// schedule fails once it stops certifying ε.
//
// # The paper's bounds as pure functions
//
// bounds.go holds the paper's other theorems as functions, each citing its source: the
// convergence facts the proofs use (GDDistanceBoundSC, GDGapBoundConvex, SensitivitySC),
// the Gaussian tail and privacy-loss facts (GaussianTailRadius, GaussianRenyi,
// GaussianPrivacyLossMeanVar), the accuracy theorems of every variant (AccuracySC,
// AccuracyPerfect, AccuracyRegStrong, AccuracyRegWeak, DistAccuracyBigO), Table 1
// (Table1Accuracy, Table1UpdateIters, Table1BaselineIters) and the certified radius
// recursion along a request sequence (CertifiedRadii, CertifiedDeltas).
//
// # Accuracy along a long sequence
//
// Accuracy runs the experiment `audit reproduce d2d-accuracy` shows: every variant along
// a long random sequence of additions and deletions, the excess risk of fresh publications
// against exact ERM at checkpoints (AccuracyCheckpoints), beside each theorem's accuracy
// bound, and a check that the error does not grow (AccuracyResult, AccuracyCurve).
//
// # The method contract
//
// Method is D2D behind audit.Method, registered in init: its demo variants (the four
// modes and distributed descent) and settings; its certificate from declared constants
// (Method.Bounds: γ, η, iterations, sensitivity and σ of Theorems 3.1–3.5 and 4.5, with
// the other reading of each flagged formula — what "audit bounds d2d" prints); and the
// d2d-accuracy experiment (Method.Experiments), which runs Accuracy on the MNIST
// 3-vs-8 and breast-cancer data and renders the reproduction with its figures:
//
//	rows, err := d2daudit.Method{}.Bounds().Run(ctx, []string{"--variant", "perfect", "--lipschitz", "1", …})
//
// Controls are a subject's negative controls (audit.Control): the same checks on three
// mutants — no-unlearning (the requests ignored), weak-noise (a tenth of the σ needed) and
// sees-deleted (every update descends on the data before its request) — which the audit
// must FAIL. The demo attaches them to every gradient-descent subject; distributed descent
// has none yet.
package d2daudit
