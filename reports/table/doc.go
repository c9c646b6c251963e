// Package table holds the values a method package fills in for a report's tables and
// curves — a Number that survives JSON (±Inf and NaN as strings), a named Value, a Row of
// Cells beside the paper's printed values — and the number formats the renderings share
// (Format for tables, G10 for the command line's text). It is a leaf: it imports the
// standard library alone, so that what computes a table need not import the renderers
// in package reports, which import it.
//
//	yes := true
//	row := table.Row{Label: "σ", Cells: []table.Cell{{Value: 0.25, Paper: "0.25", Match: &yes}}}
package table
