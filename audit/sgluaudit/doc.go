// Package sgluaudit audits Stochastic Gradient Langevin Unlearning (reference/sglu).
//
// Every guarantee of the paper is a pure function here (spec sglu §3): Lemma 3.5's W∞
// bound, Corollary 3.8 (the main bound), Theorem 3.2 (finite learning), Corollary 3.9
// (random batches), Corollary 3.10 (convex), Corollary 3.12 (batch requests), Theorem 3.11
// (sequential requests), the Langevin Unlearning and Descent-to-Delete baselines, the
// (ϵ, δ) conversion and the searches for the least K and the smallest σ. The readings the
// spec flags are options: PABI form (sglu.PABIMode), noise-variance convention
// (sglu.Variance), Theorem 3.2's F_T (FTReading), the α range (sglu.AlphaRange) and the
// code's mixed mode for sequential requests.
//
// Beyond the formulas: Subject and Check audit an SGLU deployment on real data, with the
// certificate, an exact oracle (QuadraticOracle: the same rows and epochs on a quadratic
// loss, where the laws are Gaussian), the noise the implementation injects (its own runs on
// a zero-feature twin of the data, where the law is exactly N(0, v_s·I), tested two-sided
// so half or double the variance FAILs) and the empirical distinguishing game side by side;
// PaperSettings, Table3Paper and the Fig. 3d grid hold the paper's experiment constants;
// Experiment runs its Fig. 3a/3b/3c on a real train/test split.
//
// Method is SGLU behind audit.Method, registered in init: its demo subject and settings;
// its certificate from declared constants (Method.Bounds, "audit bounds sglu"), which
// chooses the theorem by variant — convergent (Cor 3.8), finite (Thm 3.2), random-batches
// (Cor 3.9), convex (Cor 3.10, with ZConvex), batch (Cor 3.12), sequential (Thm 3.11) —
// and the conversion, searches σ or K for a target, and prints the other reading beside
// each flagged formula; and the paper's experiments (Method.Experiments): sglu-table3,
// sglu-fig3d and sglu-mnist (MNIST 3-vs-8 from the t10k file of datasets/, or Fashion-MNIST at
// the paper's n with --source fashion-mnist), each rendered as one reproduction.
package sgluaudit
