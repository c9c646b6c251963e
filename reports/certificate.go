package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// WriteCertificate prints a certificate's rows: a table of key, value and note, or with
// asJSON one JSON object whose keys keep the table's order (numbers as Number writes
// them, so ±Inf and NaN survive).
func WriteCertificate(w io.Writer, rows []audit.Row, asJSON bool) error {
	if asJSON {
		b := []byte{'{'}
		for i, r := range rows {
			if i > 0 {
				b = append(b, ',')
			}
			k, err := json.Marshal(r.Key)
			if err != nil {
				return fmt.Errorf("certificate key %q: %w", r.Key, err)
			}
			var v []byte
			if f, ok := r.Value.(float64); ok {
				v, err = Number(f).MarshalJSON()
			} else {
				v, err = json.Marshal(r.Value)
			}
			if err != nil {
				return fmt.Errorf("certificate %s: %w", r.Key, err)
			}
			b = append(append(append(b, k...), ':'), v...)
		}
		b = append(b, '}', '\n')
		_, err := w.Write(b)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		v := fmt.Sprint(r.Value)
		if f, ok := r.Value.(float64); ok {
			v = G10(f)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Key, v, r.Note)
	}
	return tw.Flush()
}

// G10 formats a number to ten significant digits, +Inf as "+Inf": the precision of the
// command line's plain-text outputs.
func G10(v float64) string { return fmt.Sprintf("%.10g", v) }
