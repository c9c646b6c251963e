package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
)

// runReport re-renders a finished audit's report.json: the JSON is the source of truth,
// and every other form is made from it alone.
func runReport(args []string, stdout, stderr io.Writer) error {
	var in, format, out string
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&in, "in", "", "a report.json written by demo or run (required)")
	audit.Var(fs, &format, audit.Param{Name: "format", Usage: "md (Markdown), html (one self-contained page), pdf (A4, fonts embedded) or json (canonical re-encoding)", Default: "md", Kind: audit.Choice, Choices: []string{"md", "html", "pdf", "json"}})
	fs.StringVar(&out, "out", "", "file to write (default: standard output)")
	var date string
	fs.StringVar(&date, "date", "", "the audit date to state, YYYY-MM-DD or an RFC 3339 time (default: the date report.json holds)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit report --in report.json [--format md|html|pdf|json] [--out FILE]\n\nRe-renders a finished audit from its report.json.\n\nExamples:\n  audit report --in audit-report/report.json --format html --out report.html\n  audit report --in audit-report/report.json --format pdf --out report.pdf\n\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return pipeline.Rerender(in, format, date, cliflag.IfGiven(cliflag.Set(fs), "out", &out), stdout)
}
