//go:build tools

// Package pins keeps module requirements that no code imports yet. gonum v0.17.0 requires
// gonum/plot v0.15.2, so without this import `go mod tidy` would drop our pin of plot
// v0.17.0 (the HTML reports will draw with it) and a later import would get the old one.
package pins

import _ "gonum.org/v1/plot"
