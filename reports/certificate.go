package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// WriteCertificate prints a certificate's rows: a table of key, value and note, or with
// asJSON one JSON object whose keys keep the table's order (numbers as Number writes
// them, so ±Inf and NaN survive).
func WriteCertificate(w io.Writer, rows []verdict.Row, asJSON bool) error {
	if asJSON {
		b := []byte{'{'}
		for i, r := range rows {
			if i > 0 {
				b = append(b, ',')
			}
			k, err := json.Marshal(r.Key)
			if err != nil {
				return fmt.Errorf("certificate key %s: %w", clip.Quote(r.Key), err)
			}
			var v []byte
			switch x := r.Value.(type) {
			case float64:
				v, err = table.Number(x).MarshalJSON()
			case []float64: // as Numbers, so that ±Inf and NaN survive in a list too
				ns := make([]table.Number, len(x))
				for i, f := range x {
					ns[i] = table.Number(f)
				}
				v, err = json.Marshal(ns)
			default:
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
		switch x := r.Value.(type) {
		case float64:
			v = table.G10(x)
		case []float64:
			parts := make([]string, len(x))
			for i, f := range x {
				parts[i] = table.G10(f)
			}
			v = "[" + strings.Join(parts, " ") + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Key, v, r.Note)
	}
	return tw.Flush()
}
