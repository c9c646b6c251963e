package safeaudit

import (
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
