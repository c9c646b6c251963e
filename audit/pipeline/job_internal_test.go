package pipeline

import (
	"errors"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
)

// OutError says the way out of each refusal of the folder, and names the command in every
// error. Planted bugs caught: "it" for several files, the --force hint on a lock.
func TestOutError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&outdir.ForeignError{Dir: "d", Names: []string{"a"}}, "; move it away, or give --force to let this run replace it"},
		{&outdir.ForeignError{Dir: "d", Names: []string{"a", "b"}}, "; move them away, or give --force to let this run replace them"},
		{&outdir.ManifestError{Path: "m", Err: errors.New("bad")}, "; give --force to take the folder over"},
		{&outdir.LockedError{Dir: "d"}, ""},
	} {
		got := OutError("demo", c.err).Error()
		if got != "demo: "+c.err.Error()+c.want {
			t.Errorf("%T: %q; want %q", c.err, got, "demo: "+c.err.Error()+c.want)
		}
		if !errors.Is(OutError("demo", c.err), c.err) {
			t.Errorf("%T: not in the chain", c.err)
		}
	}
}
