// Package d2d implements Descent-to-Delete (Neel, Roth, Sharifi-Malvajerdi 2020):
// perturbed projected gradient descent that learns, serves a sequence of additions and
// deletions by a few warm-started gradient steps each, and publishes every model with
// Gaussian noise calibrated so that the published model is (ε, δ)-indistinguishable from a
// retrain from scratch.
//
// Two modes are implemented for strongly convex losses. SecretState (Theorem 3.1) warm
// starts from the previous pre-noise model, which must then be kept secret; Perfect
// (Theorem 3.2) warm starts from the previous published model, so nothing secret is kept,
// at the price of a minimum budget I_min and a few extra iterations per update.
//
// Params holds the declared constants and target; its methods are the parameter rules of
// the theorems as pure functions (γ, η, T, T_i, Δ, σ, radii, I_min), each citing its
// source, with the spec's golden values in testdata. NewPlan validates a configuration and
// derives σ; Learn and Model.Update run Algorithms 1–3:
//
//	plan, err := d2d.NewPlan(d2d.SecretState, params)
//	m, err := d2d.Learn(ctx, plan, loss, data, streams.Rand("publish/0"))
//	err = m.Update(ctx, reference.DeleteID(42), streams.Rand("publish/1"))
//	released := m.Published()
//
// Where the paper's proof of Theorem 3.2 prints a Δ that does not certify ε (spec d2d
// §3.5), PerfectSensitivity returns both the printed and the tight reading, so an audit
// can show the difference; the theorem's σ and I are correct under the tight reading.
package d2d
