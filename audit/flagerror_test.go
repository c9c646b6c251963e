package audit

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// The flag package's own errors echo an unknown flag's name raw and a bad value twice
// ("invalid boolean value "…" for -b: parse error" quotes it, strconv's error again for
// other kinds): ParseFlags clips both, and leaves a short message as the flag package wrote it.
func TestFlagErrorClipsWhatItEchoes(t *testing.T) {
	hostile := "\x1b[31m\x1b]0;t\x07" + strings.Repeat("A", 1<<20)
	parse := func(args ...string) string {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Bool("b", false, "")
		fs.Int("n", 0, "")
		err := ParseFlags(fs, args)
		if err == nil {
			t.Fatalf("%.20q: no error", args)
		}
		return err.Error()
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
		{[]string{"--b=maybe"}, `invalid boolean value "maybe" for -b: parse error`},
		{[]string{"--n=x"}, `invalid value "x" for flag -n: parse error`},
		{[]string{"--n"}, "flag needs an argument: -n"},
	} {
		if got := parse(c.args...); got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
	for _, args := range [][]string{{"--" + hostile}, {"--b=" + hostile}, {"--n=" + hostile}, {"---" + hostile}} {
		got := parse(args...)
		if len(got) > 2*clip.Bound || strings.ContainsAny(got, "\x1b\x07") {
			t.Errorf("%.20q: %d bytes: %.200q", args, len(got), got)
		}
	}
}
