package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

// dateUsage is --date's help, the same for every command that writes a report.
const dateUsage = "the audit date the report states, YYYY-MM-DD or an RFC 3339 time (default: the day of $SOURCE_DATE_EPOCH, Unix seconds, else today, both in UTC); " +
	"the same inputs, seed and date give the same report bytes"

// dateFlag declares --date.
func dateFlag(fs *flag.FlagSet, p *string) { fs.StringVar(p, "date", "", dateUsage) }

// now is the clock a report's date falls back on; tests replace it.
var now = time.Now

// auditDate is the date a command's report states (reports.AuditDate); a bad --date or
// SOURCE_DATE_EPOCH is bad usage, refused before any work.
func auditDate(command, flagValue string) (string, error) {
	d, err := reports.AuditDate("--date", flagValue, getenv, now)
	if err != nil {
		return "", fmt.Errorf("%s: %v", command, err)
	}
	return d, nil
}
