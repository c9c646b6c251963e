package pipeline

import (
	"context"
	"io"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/progress"
)

// With controls, run, merge and demo check them sharing the subject's bootstrap resamples
// (the same bits, drawn once); without, nothing is kept.
func TestControlsShareResamples(t *testing.T) {
	for _, controls := range []bool{true, false} {
		if q := checkQueue(context.Background(), Plan{Controls: controls, Progress: progress.New(io.Discard, false)}); q.Shared != controls || q.Show == nil {
			t.Errorf("controls %v: the check queue shares %v (shows steps: %v)", controls, q.Shared, q.Show != nil)
		}
	}
}
