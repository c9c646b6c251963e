// Package pipeline turns an audit's inputs into its report, so that the CLI, props and a
// library user get the same report from the same inputs, byte for byte.
//
// Two entry points do the work the audit command's subcommands name:
//
//   - Run runs a Plan — subjects (each method's audited variants), their checks and
//     optionally their negative controls — through the trial engine, checks the trials
//     side by side, and assembles the report (audit demo, audit run, and audit merge's
//     report step).
//   - Verify runs verify's inputs — models or per-record scores trained elsewhere, a
//     recipe to retrain by, reference scores, held-out scores, a canary plan, pre-noise
//     parameters, utility values — down the one route they call for, and assembles the
//     report (audit verify). SpecSettings are the claim, name and rank p-value a command
//     line gives over the spec, and VerifyInputs.Inputs the files read, which an output
//     folder must not replace.
//
// Around them: DataSource loads a dataset with its provenance, NewSubjects asks every
// registered method for the subjects of a demo setup, and OneRun is the one-run demo's
// report. EstimateFiles, EpsilonFiles and ParseCounts take audit estimate's, epsilon's
// and plan --table's inputs as the command line names them (files, a list) and load and
// check them, so that a refusal names the flag or file whichever front end asked.
// Rerender re-renders a report.json (audit report); Reproduce runs a paper's experiment
// into an output folder and WriteExperiments lists them (audit reproduce); Certifiers
// and CertifierNamed find the methods audit bounds computes certificates of, and ParseIDs
// reads --delete's record IDs. The
// caller keeps where the report goes (the CLI writes it into its output
// folder) and how it is printed.
//
// A Job is audit demo's and audit run's settings, whichever front end gave them: flags,
// or a spec file with flags over it (ApplySpec: a flag given overrides the spec, and errors
// about the spec's settings name its fields). Prepare refuses bad settings before any work
// and makes the Plan; Audit opens the output folder, claims every file it may replace or
// remove, removes the old report (and with Fresh the kept trials), runs the plan resuming
// from its checkpoints and writes the report; RunPart runs a part of the trials into its
// own folder with a manifest, for audit merge, which GatherShards and ReplayArgv serve;
// PrepareOneRun and OneRun are the one-run demo's. Audit and RunPart ready their folders
// the same way (ReportNames, CheckOut, OpenOut and OutError are the folder's vocabulary).
//
// Errors name the CLI's flags (--unlearned, --data, …) or the spec's fields, as the
// command prints them: the inputs here are the command's flags, by another name.
package pipeline
