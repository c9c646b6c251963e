// Package canary audits an unlearning method with one training run, by canaries.
//
// One run of m canaries (spec estimators-and-attacks §(h)): a plan (NewCanaryPlan,
// onerun.DrawPlan) decides which canaries are trained on and which of those are deleted;
// the method runs once; every canary is scored under the published model; and
// OneRunFinding judges the scores at (2ε, (1 + e^ε)δ), the claim the m/2 deletions need.
//
//	claim, fs, err := canary.VerifyOneRun(plan, scores, s)
//
// VerifyOneRun does this for a run made elsewhere (the plan drawn by NewCanaryPlan and
// written, never over another, by WritePlan; the scores read back). OneRunDemo does it for the toolkit's own methods: m Dirac canaries
// (DiracCanaries: the data padded with m zero columns, canary i alone on column d + i), a
// setup that trains on them and deletes the included ones (OneRunSetup), each canary
// scored by its margin (CanaryMargins), on a doubling ladder of m that says at which m
// each negative control is first refuted.
//
// One run tests the claim canary by canary, so it shows a bug only when each canary's
// trace exceeds what the claim allows one record: a Gaussian mechanism of μ =
// onerun.GaussianMu(2ε, (1 + e^ε)δ) per canary is within the claim, and a typical run of
// m canaries refutes only from onerun.TypicalRefutingMu. OneRunResult.Reading says which
// side of these a control not refuted falls; controls whose noise already hides one
// record's pull can only be caught by the trial audit's checks on independent runs.
package canary
