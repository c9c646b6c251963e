// Package audit decides whether an unlearning method keeps its promise.
//
// A Subject is an unlearning setup the auditor can sample: each trial learns, serves the
// requests and publishes (Unlearned), and retrains from scratch on the final data and
// publishes (Retrained). Its Claim says what the method certifies, under which
// assumptions and neighbouring relation, with the arithmetic that produced it: named
// constants (Value) and derivation steps (Step), each with its formula.
//
// The Engine runs trials on a worker pool. Trial i takes all its randomness from
// reference.Streams{Seed, i}, so results do not depend on the number of workers, and each
// finished trial (a TrialResult) is appended to a checkpoint file at once, so an
// interrupted audit resumes where it stopped. A checkpoint is keyed by the subject's
// Fingerprint — its claim, and whatever else a Fingerprinter says about its configuration
// — so one written for another configuration is refused, never mixed in, with the
// settings that differ named; CheckpointPath gives each configuration a file of its own,
// and ConfigFingerprint is the one hash every method's Fingerprint uses. Every trial line
// carries its index and a checksum of the configuration and its own content: a line edited,
// duplicated, out of range or copied from another configuration's file is a
// CheckpointError naming the file and line (a torn last line, an interrupted write, is
// dropped). The file is created with the first finished trial.
//
// A checksum catches accidents, not someone who can write the file: they can recompute it.
// With an evidence key (Engine.Key, package evidence), every line carries an HMAC-SHA256
// tag under the key, bound to the file's header and checked before the line is decoded,
// so a forged, edited or transplanted line is refused; shard manifests are tagged alike,
// and MergeShards takes the key. A file written with a key is refused without it, and the
// other way round, each with a message saying which.
//
// A Dimensioned subject says how many parameters its models have (every demo subject
// does): each checkpoint line is then bounded by MaxTrialLineBytes of it when resumed,
// merged or written, so a hostile line of any length costs about that bound, not its own
// length, before it is refused.
//
// # Shards
//
// Because a trial depends only on (configuration, seed, index), an audit splits across
// machines without a scheduler: a Shard is part I of N (ParseShard reads "I/N";
// ShardFromEnv takes it from a Slurm job array or a Kubernetes Indexed Job), and an Engine
// with a Shard runs only trials I, I+N, I+2N, … into its checkpoint. Each part's folder holds
// a ShardManifest (WriteShardManifest, ReadShardManifest) naming the audit's RunFingerprint,
// the command to replay and a checkpoint per subject with its models' dimension (which
// bounds the file's lines when merging), marked Complete only when every trial is on disk. MergeShards gathers the parts (FindShards) and refuses, in one MergeError
// listing every problem, parts of another fingerprint or count, a part given twice, trials
// missing (with the part to rerun and the command), trials filed in the wrong part and
// edited lines; WriteCheckpoints then leaves the merged trials where a one-machine run would
// have, and an Engine with ResumeOnly checks and reports them without running any, so the
// merged report is the one-machine report byte for byte.
//
// Calibrate times a few trials and each check on this machine, and Calibration.Predict
// turns that into the wall time of any number of trials on one machine and on N shards;
// GamePowerSpec is the power question the distinguishing game answers, which the planner
// asks too, so the trials it names are the trials the finding counts as enough.
//
// Settings are declared, not parsed ad hoc: a Param has a Kind, a Range ("[8, 1e6]") or
// Choices, and BindFlags, Var and ParseFlags refuse any other value where it is given
// ("--trials 7: want an integer in [8, 1000000]"), whether or not the run uses it. Every
// setting that drives size or time has an upper bound (MaxTrials for trials), and
// CheckTrialCapacity refuses, before any work, trials whose kept models (up to six per trial)
// would pass reference.MaxValues, the toolkit's one memory cap.
//
// A Spec is an audit written down (ParseSpec, LoadSpec): data and its preprocessing
// (reference.ParsePipeline), model, method, variants and settings, deletions, claim,
// trials and power, the attacks to run (Attacks: the GameAttack and the MembershipAttack)
// and the outputs (SpecOutputs), each field checked against the same declarations as the
// flags (TrialsParam, EpsilonParam, a method's DemoParams, …), unknown fields refused, and
// every error a SpecError naming the field's path.
//
// A Finding may carry Traces: a quantity followed request by request (which requests:
// TraceRequests) beside the bound it is held to, for the reports' plots against the number
// of requests. AddTrace holds a deterministic finding to every traced request, so a method
// that strays from its bound mid-sequence fails even if it ends within it.
//
// Checks turn trials into Findings of four kinds (Kind): certificate (is the claim's arithmetic
// right, do the declared constants hold on the data), implementation (does the method
// behave as its proof assumes, against an exact retrain), release (how far apart are the
// published laws, measured with the method's secret state), and empirical (what an
// attacker who sees only the published models can show). Method-specific checks live in
// subpackages (d2daudit); GaussianRelease serves every method that publishes a model plus
// Gaussian noise, EmpiricalRelease every method at all, and MembershipRelease every method
// whose requests delete records: a membership-inference attack (package mia's scores) on
// the deleted records under the unlearned and the retrained models. HoldoutMembership
// measures one model's membership of the deleted records against held-out records (AUC,
// TPR at FPR 0.1 % and 1 %, the ROC and per-record scores in Finding.Membership): always
// INCONCLUSIVE, since it is a measurement, not an ε bound.
//
// # One-run audits of the toolkit's methods
//
// OneRunDemo audits a method's demo variants and their negative controls with one
// training run each (spec estimators-and-attacks §(h)): m Dirac canaries (DiracCanaries:
// the data padded with m zero columns, canary i the data's largest row norm on column
// d + i alone, so that a linear model's weight there is pulled by canary i only), the
// plan onerun.DrawPlan(seed, m), a setup that trains on 𝒟₀ and the included canaries and
// deletes each of them (OneRunSetup), one Unlearned run, every canary scored by its
// margin under the published model (CanaryMargins: linear logistic or two-class softmax),
// judged by OneRunFinding at (2ε, (1 + e^ε)δ). It climbs a doubling ladder of m and says
// at which m each control is first refuted; "audit demo --one-run" prints the table. The
// argument needs the claim to cover the m/2 deletions and its reference to be a retrain
// on 𝒟₀ for every plan; the claim it reports says so.
//
// One run tests the claim canary by canary, so it shows a bug only when each canary's
// trace exceeds what the claim allows one record: a Gaussian mechanism of μ =
// onerun.GaussianMu(2ε, (1 + e^ε)δ) per canary (0.477 at ε = 1, δ = 1e-6) is within the
// claim for every canary, and a typical run of m canaries refutes only from
// onerun.TypicalRefutingMu (+Inf at m = 64, 2.79 at 128, 2.28 at 256). Each result reads
// its μ per canary from its scores (onerun.BinormalMu) and OneRunResult.Reading says
// which side of these a control not refuted falls. On the demo's data D2D's
// no-unlearning control is refuted at m = 128 in perfect mode and at m = 64 at 100
// iterations a request, OLU's paper-gamma control at m = 64; the controls whose noise
// already hides one record's pull (D2D at its default 10 iterations, HF's
// deletions-ignored, SGLU's no-unlearning) or that leave one canary undeleted (SAFE's
// update-skipped), and those that only weaken the noise around a residual far below it
// (weak-noise, half-noise), leave μ below 0.477: one run cannot show them at any m, and
// the trial audit's checks on independent runs are what catch them.
//
// # Verdicts
//
// One rule decides every check. A certificate is an upper bound on some quantity.
//
//   - FAIL when an empirical lower bound on the quantity exceeds the certified bound at the
//     stated confidence, or a deterministic inequality of the proof is broken (beyond a
//     rounding slack of 1e-9 relative plus 1e-12 absolute: FloatTolerance, Deterministic).
//   - PASS when it does not, and the check could have shown a violation: for a confidence
//     interval, its upper end is within the bound; for a distinguishing game, it would
//     have caught the named violation — the Gaussian-mechanism pair whose exact ε at the
//     claim's δ is F times the claimed ε (F = 2 unless set; DefaultPowerAgainst) — with
//     probability at least 0.8 (PowerTarget) at the trials it used. Every empirical
//     finding states that power and the smallest F it catches (Finding.Power). The
//     resolution, the largest ε its trials could show at all (about ln N), is necessary
//     for power but not sufficient.
//   - INCONCLUSIVE otherwise; the finding gives about the number of trials that would
//     decide (for a game, the trials per side that reach 80 % power against F×). A game
//     needs at least MinEmpiricalTrials trials to be played at all.
//
// A statistical finding carries its confidence Interval; Worst and Count combine and
// tally verdicts.
//
// A subject's verdict (Decide) comes from the findings its claim requires
// (Claim.Required). An audit that runs the method itself requires certificate,
// implementation and release checks (StateHolding) and reports the empirical game as
// supporting evidence with its power; a black-box audit of saved models requires the
// empirical checks. Supporting evidence never makes a subject PASS or INCONCLUSIVE, but a
// violation it shows fails the subject. Consistent states what a sound method's findings
// look like, for tests of one's own unlearner.
//
// Point estimates are reported but never decide a verdict alone. A Finding's Estimates —
// divergence estimates with bootstrap intervals, the Gaussian-DP route's ε, the NeurIPS
// 2023 competition's ε — are estimates, not bounds, and are reported beside the
// measurement that decides. A Finding's Confidence is the probability that a FAIL is not a
// false alarm (1 for deterministic checks).
//
// # Models trained elsewhere
//
// VerifySamples audits two samples of saved models (one model a row, as
// artifact.LoadSample reads them, of any sizes of at least MinEmpiricalTrials) against a
// Spec's claim with one distinguishing game over a pre-registered family of one-number
// statistics (FamilyGame: directions fitted on the selection half, the spread), chosen
// with their threshold on half the models and bounded on the other half, with its power;
// VerifyScores does the same on per-record scores (models × deleted records: the mean and
// median score, and with References the U-LiRA aggregate), the route for deep networks.
// For linear models the toolkit computes the scores itself: LinearLosses gives each
// model's logistic loss on the deleted records from its weights and the data (with the
// intercept first when Spec.Intercept), and VerifyModels adds the deleted records' mean
// and median loss, mean confidence and loss-gradient direction to the family. Fewer
// unlearned models — one production model — get RankCheck: the one-sided rank of their
// deleted records' mean loss among the retrains, on the conservative p-value that no seed
// moves, which can FAIL a gross violation and never PASSes. Without retrained models, a Recipe (NewRecipe: the spec's data,
// deletions and one variant of its method, run by the toolkit's own implementation)
// retrains them (Recipe.Retrain) for VerifyAgainstRecipe. VerifyOneRun judges one
// training run with canaries (CanaryPlan, audit/onerun), HoldoutMembership measures one
// model's membership against held-out records. SavedSubject turns two saved samples into a
// Subject, so the Engine and every check run on models from disk as on the toolkit's own.
//
// # Methods
//
// Every method's audit package implements one contract, Method, and registers it
// (Register, in its init function; package audit/methods imports them all). A Method
// offers three things, each described by data a front end turns into flags:
//
//   - Demo subjects: its demo variants and settings (Variant, Param; BindFlags makes a
//     flag of each and fills Args), and Demo, which builds Audited subjects, each with a
//     Check of one signature, from a DemoSetup that NewDemoSetup builds once for all
//     methods from a DemoConfig: the data, the requests and the target.
//   - A certificate from declared constants (Bounds): the theorems it can apply as
//     variants, the constants as parameters, and Compute, which returns Rows of key,
//     value and note — the formula and source, or the other reading where a spec flags
//     one. Bounds.Run does the whole of "audit bounds METHOD" but the printing.
//   - The papers' experiments (Experiment): parameters and a Run that computes and
//     renders everything into a Reproduced — files, JSON, text and verdict — which the
//     front end writes (Reproduced.Write) only once the run has succeeded.
//
// Parameters arrive as text; Args parses them and names the flag in its errors, knows
// which were given (Given, Require), and an ArgReader gathers every error of a parse so
// that bad input is reported whole. Front ends only look methods up (Methods,
// MethodNamed, MethodOfVariant, DemoVariantNames, ExperimentNamed, AllExperiments), so a
// new method adds no file under cmd/; a test may Deregister a method it registered.
//
// The measuring instruments are in subpackages: estimate (Rényi divergence from samples),
// epsilon (ε lower bounds, the competition scorer, the planner); the Rényi-divergence and
// Gaussian-mechanism arithmetic is in reference/dp, shared with the algorithms that
// calibrate their noise with it.
package audit
