// Package reports holds the versioned report model and its renderings. It computes
// nothing: it converts claims and findings (package audit/verdict's) into the report
// schema ("unlearnaudit/report/v3") and renders them. It imports only leaves — the
// vocabulary (audit/verdict), audit/evidence and internal/ — never the audit root, mia or
// retrain: what it shows is computed by its callers and passed in (TestImportsLeavesOnly).
//
// The JSON form is the record: it names the tool and version, the seed, every input file
// with its SHA-256, each subject's claim with its full derivation, and each finding with
// its verdict, measured value, interval, bound and confidence. It contains no timestamps or
// host names, so the same inputs and seed give byte-identical JSON. Infinite values are
// written as the strings "+Inf" and "-Inf". Markdown renders the same content for people,
// and HTML as one self-contained page (inline CSS, no script, no network) with the
// verdict table and what each verdict means in plain words; html/template escapes every
// string the report carries, so a file name or a description cannot inject markup. The
// Markdown escapes them by construction too: every string goes through one function for
// running text, one for table cells and one for code spans (a fence longer than any
// backtick run inside), each keeping it one line of literal text, with no HTML, heading,
// list or table cell of its own; a fuzz test parses the result with goldmark. PDF
// lays the same content out on A4 with DejaVu Sans embedded (fonts/, Bitstream Vera
// license), a fixed creation date and sorted objects. All are made from the JSON alone
// (ReadJSON), byte-identical for one report; Render gives any of ReportFormats.
//
// HTML and PDF draw the same small plots, built once as a chart from numbers only and
// drawn by two backends (inline SVG, PDF lines and text): a game's score histograms and
// its ROC curve on log–log axes, and each Trace against the number of requests, its bound
// dashed, on a log axis when the values span more than a decade. The provenance is the
// tool version, the seed, the inputs' digests and Report.CommandLine (ShellLine quotes it
// for pasting back).
//
// A membership measurement on one model (checks.HoldoutMembership; Finding.Membership) is
// drawn as ML Privacy Meter users expect it: the ROC of the deleted records against the
// held-out ones on log–log axes that start at 1/holdout — the smallest nonzero rate the
// held-out records can show — with a y label and the TPRs at FPR 0.1 % and 1 % marked,
// and a per-record plot, a dot per deleted record (sorted by its percentile among the
// held-out scores) against the holdout's 95th and 99th percentiles. Markdown gives the
// AUC and the two TPRs with their intervals in a short table, as HTML and PDF also do.
//
// A Reproduction ("unlearnaudit/reproduction/v5") is a paper's experiment re-run: curves
// along update sequences per dataset, tables beside the paper's printed values, or both,
// with the checks made on them. An experiment starts one with NewReproduction, asks for
// its figures with Plot or PlotDataset (in the formats of audit.FormatsParam), hashes its
// inputs (HashInputs), marks the paper's claims with ReportClaims — they are shown with
// their verdicts but counted apart, while its own implementation checks decide the run —
// and returns the values. The front end dates it and calls Render, which draws the plots
// (RenderFigure), summarises (Summarize) and renders the JSON, the Markdown, the figures
// and the plain-text summary (WriteText) as one Reproduced. Its verdict
// follows one rule for every experiment: FAIL when a judged finding failed, INCONCLUSIVE
// when one was inconclusive or none was judged (a run that judged nothing showed nothing),
// PASS only when judged findings all passed.
//
// WriteCertificate prints a method's certificate (verdict.Row) as a table or as one JSON
// object whose keys keep the table's order; G10 is the ten-digit number format of the
// command line's text outputs. Those table values (Number, Value, Cell, TableRow) and the
// number formats live in the leaf reports/table, so that a method package filling in a
// table need not import the renderers.
//
// A report of trials says whether they were authenticated (TrialEvidence: written and read
// back under an evidence key, or not), in its JSON and in one sentence of every rendering
// (EvidenceText). Sign wraps report.json's exact bytes in a DSSE envelope signed with
// Ed25519 (PayloadType), and CheckSigned checks one against the signer's public key and,
// if given, the report's bytes (package audit/evidence holds the keys and the envelope);
// CheckSignedFiles does the same from files, each read within its bound.
package reports
