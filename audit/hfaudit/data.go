package hfaudit

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// splitInputs are the split's files as a report's inputs (hashed by reports.HashInputs).
func splitInputs(d *multiclass.Split) []reports.Input {
	out := make([]reports.Input, len(d.Files))
	for i, f := range d.Files {
		out[i] = reports.Input{Role: f.Role, Path: f.Path}
	}
	return out
}

// Accuracy is the fraction of rows whose largest logit — the smallest loss over the
// labels — is the label.
func Accuracy(m multiclass.Model, w []float64, data *multiclass.Data) float64 {
	right := 0
	for i := range data.Len() {
		best, arg := math.Inf(1), -1
		for k := range m.Classes() {
			if l := m.Loss(w, data.Row(i), k); l < best {
				best, arg = l, k
			}
		}
		if arg == data.Y[i] {
			right++
		}
	}
	return float64(right) / float64(data.Len())
}
