//go:build !unix

package sgluaudit_test

import (
	"testing"
	"time"
)

// cpuTime is 0 where getrusage is not available: the benchmark then reports wall time only.
func cpuTime(testing.TB) time.Duration { return 0 }
