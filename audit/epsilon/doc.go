// Package epsilon turns a distinguishing game into ε lower bounds.
//
// The game: scores of N samples from each of two laws (say the confidence of a forgotten
// example under N unlearned and N retrained models). Any decision rule has false-positive
// and false-negative rates, and an (ε, δ)-indistinguishable pair forces
// FPR + e^ε·FNR ≥ 1 − δ and FNR + e^ε·FPR ≥ 1 − δ. With Clopper–Pearson upper bounds on
// the rates, Game.LowerBound gives ε_LB that holds at the stated confidence; the rule's
// threshold is chosen on held-out samples (Split) or with a correction that makes the
// bounds simultaneous over every threshold (Bonferroni).
//
// Also here: the Gaussian-DP route (Game.GDP), TensorFlow Privacy's ratio bounds
// (RatioLowerBound), the NeurIPS 2023 unlearning competition's per-example ε and
// forgetting score (Competition, reproduced from the official scorer and labelled as
// that), and the planner: MaxCertifiable, the largest ε any test with N trials could show
// (about ln N), and TrialsToDetect, the trials needed to catch a claim that is off by a
// factor with a given power.
//
//	res, err := epsilon.Game{Delta: 1e-5}.LowerBound(unlearnedScores, retrainedScores)
//	if res.Epsilon > claimed { /* the claim is violated at 95 % confidence */ }
package epsilon
