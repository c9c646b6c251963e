package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// Rerender answers audit report: it reads the report.json at in (within
// reports.MaxJSONBytes), states date over the date it holds when date is given (a date or
// an RFC 3339 time, reports.ParseDate), and renders it in format (reports.Report.Render),
// to the file *out, written atomically, or to stdout when out is nil. The JSON is the
// source of truth: every other form is made from it alone.
//
// Everything that can be refused without reading the report is refused first: a bad date,
// then an out that is empty, a folder or the report itself (outdir.CheckOut).
func Rerender(in, format, date string, out *string, stdout io.Writer) error {
	if in == "" {
		return errors.New("report: --in is required")
	}
	if date != "" { // SOURCE_DATE_EPOCH is the audit's, not the rendering's: not read here
		d, err := reports.ParseDate(date)
		if err != nil {
			return fmt.Errorf("report: --date: %w", err)
		}
		date = d
	}
	if out != nil { // --out= is refused, not taken for standard output
		if err := outdir.CheckOut("--out", *out, outdir.Input{Flag: "--in", Path: in}); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	b, err := regular.ReadFile(in, reports.MaxJSONBytes)
	if err != nil {
		return fmt.Errorf("report: --in: %w", err)
	}
	rep, err := reports.ReadJSON(bytes.NewReader(b), in)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if date != "" {
		rep.Date = date
	}
	body, err := rep.Render(format)
	if err != nil {
		return err
	}
	if out == nil {
		_, err := stdout.Write(body)
		return err
	}
	return atomicfile.WriteFileAtomic(*out, body)
}
