// Package d2daudit audits Descent-to-Delete deployments (reference/d2d).
//
// New turns a Setup — mode, loss, data, requests, declared constants and target — into a
// Subject the audit engine can sample, after checking every request against the data. Check
// then runs three families of checks on the trials:
//
//   - certificate: σ recomputed from the declared constants; the declared Lipschitz
//     constant against the exact largest gradient norm on Θ over every record that
//     appears; smoothness and strong convexity against the loss;
//
//   - implementation: the unlearned secret model within the radius of the exact minimiser
//     the proof needs (Theorem 3.1, Eq. 3; Theorem 3.2, Eq. 13), within Δ of the retrain,
//     and the retrain within the learner's radius (Eq. 2);
//
//   - release: the Gaussian release check of the published laws against the claim.
//
//     s, err := d2daudit.New(d2daudit.Setup{Mode: d2d.SecretState, Loss: loss, Data: d0, Updates: reqs, Params: p})
//     trials, err := audit.Engine{}.Run(ctx, s, seed, 200)
//     findings, err := d2daudit.Check(ctx, s, trials, d2daudit.Options{})
package d2daudit
