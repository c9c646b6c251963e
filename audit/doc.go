// Package audit is the contract an unlearning method implements to be audited, and the
// registry the front ends find methods in.
//
// Every method's audit package implements one contract, Method, and registers it
// (Register, in its init function; package audit/methods imports them all). A Method
// offers three things, each described by data a front end turns into flags:
//
//   - Demo subjects: its demo variants and settings (Variant, Param; BindFlags makes a
//     flag of each and fills Args), and Demo, which builds Audited subjects — a
//     trials.Subject, the Check of its trials, and its negative Controls (Mutant: the
//     subject with one real bug planted) — from a DemoSetup that NewDemoSetup builds once
//     for all methods from a DemoConfig: the data, the requests and the target.
//   - A certificate from declared constants (Bounds): the theorems it can apply as
//     variants, the constants as parameters, and Compute, which returns Rows of key,
//     value and note. Bounds.Run does the whole of "audit bounds METHOD" but the printing.
//   - The papers' experiments (Experiment): parameters and a Run that computes the
//     result as report values (a reports.Reproduction with the figures it asks for),
//     which the front end renders and writes only once the run has succeeded.
//
// Settings are declared, not parsed ad hoc: a Param has a Kind, a Range ("[8, 1e6]") or
// Choices, and BindFlags, Var and ParseFlags refuse any other value where it is given
// ("--trials 7: want an integer in [8, 1000000]"). Args parses the values and names the
// flag in its errors, knows which were given (Given, Require), and an ArgReader gathers
// every error of a parse so that bad input is reported whole. A method binds its settings
// to struct fields once (Setting: IntSetting … ChoiceSetting, GivenSetting for those whose
// absence matters, read by ReadSettings), so its code reads fields, never names. A method refuses a setting
// with a SettingError, which the front end names as a flag or, for a spec, as the spec's
// field (SettingError.InSpec, SpecField, SpecError). CheckOptions are the settings every
// check shares (confidence, seed, power, Attacks). Front ends only look methods up
// (Methods, MethodNamed, MethodOfVariant, DemoVariantNames, ExperimentNamed,
// AllExperiments), so a new method adds no file under cmd/; a test may Deregister a
// method it registered.
//
// Calibrate times a few trials of Audited subjects and their checks on this machine, and
// Calibration.Predict turns that into the wall time of any number of trials on one machine
// and on N shards. It stays here, beside Audited, rather than with the engine.
//
// The rest of the toolkit, one job a package (lowest first):
// audit/verdict (verdicts, findings, the decision rules), audit/trials (the trial engine,
// checkpoints, shards, the check queue, Subject), audit/checks (the shared release,
// empirical, membership, family, U-LiRA and holdout checks), audit (this contract),
// audit/spec (the spec file), audit/verify (verify's routes on models trained elsewhere),
// audit/canary (the one-run canary demo and audit), then the method packages
// (audit/d2daudit, …) and audit/methods. The instruments are audit/epsilon, audit/onerun,
// audit/estimate and audit/evidence; the generated *_aliases.go files forward the names
// that moved until their callers have moved too.
package audit
