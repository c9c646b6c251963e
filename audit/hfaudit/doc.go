// Package hfaudit checks Hessian-Free online certified unlearning (reference/hf) against
// its paper's guarantees (spec hf §3). The guarantees are pure functions of the run's
// constants, each saying where its hypotheses fail:
//
//   - DriftBound, Lemma 2: how far retraining's trajectory can drift, 2ηG(1 − q^t)/(1 − q);
//   - Rho, Lemma 3: the contraction max(|1 − ηλ|, |1 − ηM|) of one linearised step;
//   - Thm4PerSample, Thm4SetPaper, Thm4Simplified, Thm4Closed, Theorem 4: the bound on
//     HF's approximation error ‖w^{-U}_T − w_T − a^{-U}‖ that sizes the noise, in sum
//     forms (the closed forms divide by ρ − q), with RemainderScale for the rigorous
//     reading of the proof's unproven remainder step;
//   - CodeBound: what the official code computes instead (one epoch too many, a factor
//     (1 − q)² off, ρ^B·q^B for every record with B = ⌈n/|𝓑|⌉; CodeSteps), 0.093 where
//     Eq. 56 gives 413 at the paper's own settings, against a measured error of about
//     0.21 — the paper's bound is vacuous there and the code's is not a bound of the same
//     quantity;
//   - ERMExcessRisk, GDDistanceBound, ExcessRiskBound (Lemma 9, Lemma 10, Theorem 6) and
//     DeletionCapacity, computed where the paper states only an order;
//     ExcessRiskBoundRegularized repairs Eq. 77, which charges the noise as if the
//     regularised loss were Lipschitz everywhere: a measured run violates the printed
//     bound by three orders (props' TestHFTheorem6OnAMeasuredRun) and meets the repaired one;
//   - GaussianAUC: the optimal test between the two Gaussian releases, Φ(μ/√2).
//
// The tests hold each to the spec's golden values and to the identities between forms.
//
// A Subject (New, from a Setup) is one HF audit: softmax regression trained by Stage I on
// each trial's own batch order, the deleted records removed by Stage III, published with
// analytic Gaussian noise sized by the Reading's bound — PaperBound (Theorem 4) or
// CodeReading (the official code's) — against the paper's retraining on the same order.
// Check sets side by side the certificate (σ recomputed), the measured approximation error
// against the bound that sized the noise, the hypotheses the bound rests on replayed on
// the first trial (the per-record gradients against the a priori G, Lemma 2's drift,
// Lemma 3's contraction estimated from below by Lanczos on the batch Hessians, Theorem 1's
// additivity), the published laws' divergence (checks.GaussianRelease) and the
// distinguishing game.
// Check also holds HF's relative error ‖w^{-U}_T − w̄‖/‖w^{-U}_T − w_T‖ on the first trial
// below 1 (spec hf §4.4, R2): where the retrain's drift from w_T is itself below Δ̂, as on
// the demo under both readings, a Stage III that does nothing is within the certificate,
// and only this comparison shows that the requests were not served.
//
// Method registers HF with the front ends: demo variants "hf" and "hf-code" (two-class
// softmax on the demo's data) and "audit bounds hf".
//
// # Negative controls
//
// Controls are mutants of a subject with one realistic bug, audited by the subject's own
// Check, which must FAIL them ("audit demo --variants hf,hf-code --controls"):
// half-noise (noise of half the calibrated variance) and stale-m (σ sized for the first
// request's single deletion, not for the m served) are caught by the release checks'
// noise tests; deletions-ignored (Stage III skipped, w_T published with the right noise)
// only by the relative error, since its release is within the claimed (ε, δ).
//
// # Reproductions
//
// Verification is the paper's Verification I (Fig. 1): nested forget sets at deletion
// rates, HF, the Newton step and the jackknife (reference/hf's SecondOrder) against the
// paper-rule retrain — distances, and the Pearson and Spearman correlations of each
// method's predicted loss changes on the forgotten records with the retrain's:
//
//	data, _ := multiclass.MNIST("", 1000, 400, 2, 42)
//	m := multiclass.Softmax{K: 10, P: 196, Lambda: 0.5}
//	res, _ := hfaudit.Verification(ctx, hfaudit.VerificationConfig{
//		Learn: hf.Config{Model: m, Epochs: 15, BatchSize: 32, Eta: 0.05, Decay: 0.995},
//		Train: data.Train, Rates: []float64{0.01, 0.3}, Seeds: hfaudit.PaperSeeds,
//		Damping: 0.01, Baselines: true})
//
// "audit reproduce hf-verification" runs it on MNIST (multiclass.MNIST: the t10k images,
// downsampled 2 × 2 by default) and on the review code's Wine MLP (multiclass.Wine), beside the
// paper's numbers, with figures.
//
// Online is Table 2: a fifth of the records forgotten one request at a time by HF, NS, IJ,
// Descent-to-Delete, Guo et al.'s certified removal and retraining, timed, with storage,
// accuracy, HF's float32 store against its rounding bound and the release's accuracy
// under each bound's σ ("audit reproduce hf-online"). Guo's row carries its accounting:
// the retrainings its budget forced, its true gradient residual against the bound it
// spent, its distance to its own oracle (the exact minimiser of the perturbed loss) and
// Theorem 3's δ against the Gaussian mechanism's exact one.
// MIA is §5.4's membership inference: LiRA with balanced shadow models on the forgotten
// records of the original, HF-unlearned and retrained models, the paired excess of HF over
// the retrain with the excess it could detect, and U-LiRA on HF's unlearning itself
// ("audit reproduce hf-mia"). Each finding of a paper's claim says what the measurements
// show; a claim that does not reproduce is reported, and the run does not fail on it.
//
// Check also traces HF's error request by request against the bound for that many
// deletions, and runs the membership attack on the deleted records' confidence.
package hfaudit
