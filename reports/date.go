package reports

import (
	"fmt"
	"strconv"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// DateLayout is how a report states its audit date: the calendar day, no time, so that
// two runs of the same audit on one day give the same bytes.
const DateLayout = "2006-01-02"

// SourceDateEpoch is the reproducible-builds variable (reproducible-builds.org/specs/
// source-date-epoch): a time in Unix seconds that replaces the clock, so that a build — here
// an audit report — made twice is the same bytes.
const SourceDateEpoch = "SOURCE_DATE_EPOCH"

// AuditDate is the date a report states the audit ran on, as DateLayout: the flag's value
// when given (flagName names it in errors), a date (2025-03-01) or an RFC 3339 time whose
// day, as written, is taken (2025-03-01T23:30:00+02:00 is the 1st); else
// SOURCE_DATE_EPOCH's day in UTC; else today's, in UTC, by now. getenv reads the
// environment (os.Getenv). An empty SOURCE_DATE_EPOCH counts as unset.
func AuditDate(flagName, flagValue string, getenv func(string) string, now func() time.Time) (string, error) {
	if flagValue != "" {
		d, err := ParseDate(flagValue)
		if err != nil {
			return "", fmt.Errorf("%s: %w", flagName, err)
		}
		return d, nil
	}
	if v := getenv(SourceDateEpoch); v != "" {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil || sec < 0 || sec > 253402300799 { // up to 9999-12-31T23:59:59Z
			return "", fmt.Errorf("%s=%s: want a time in Unix seconds (date +%%s), a whole number from 0", SourceDateEpoch, clip.Quote(v))
		}
		return time.Unix(sec, 0).UTC().Format(DateLayout), nil
	}
	return now().UTC().Format(DateLayout), nil
}

// ParseDate reads a date (YYYY-MM-DD) or an RFC 3339 time and returns its day as written,
// in DateLayout.
func ParseDate(s string) (string, error) {
	if t, err := time.Parse(DateLayout, s); err == nil {
		return t.Format(DateLayout), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.Format(DateLayout), nil
	}
	return "", fmt.Errorf("%s: want a date (YYYY-MM-DD) or an RFC 3339 time (2006-01-02T15:04:05Z07:00)", clip.Quote(s))
}
