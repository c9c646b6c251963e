package audit

import (
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// FormatsParam is the figure-format setting of every experiment that draws figures
// (read with reports.ParseFormats). It is declared here, with Param, and not in package
// reports: reports renders and imports nothing of the method contract.
var FormatsParam = Param{Name: "formats", Usage: "figure formats, comma-separated: " + strings.Join(verdict.FigureFormats, ", "), Default: "svg,png"}
