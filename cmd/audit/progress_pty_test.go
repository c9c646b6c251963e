//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the master to read what a process writes, and the
// slave to give it as that process's stderr (a character device, as a user's terminal).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// stderrOnTerminal runs the built command with its stderr on a pseudo-terminal, checks
// its exit code, and returns what the terminal showed.
func stderrOnTerminal(t *testing.T, wantExit int, args ...string) string {
	t.Helper()
	bin, err := auditBinary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	m, s := openPTY(t)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = s
	var out bytes.Buffer
	cmd.Stdout = &out
	shown := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, m) // until the slave side is closed by everyone (EIO)
		shown <- b.String()
	}()
	if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != wantExit {
		t.Fatalf("%v: %v, want exit %d\n%s", args, err, wantExit, out.String())
	}
	s.Close()
	select {
	case got := <-shown:
		return got
	case <-time.After(5 * time.Second):
		t.Fatal("the terminal's output did not end")
	}
	return ""
}

// etaBar matches a drawn bar whose ETA is extrapolated (not "--:--"), after the label.
const etaBar = `  \[[#.]{20}\]  +\d+/\d+  ETA \d+:\d\d`

// On a terminal, the long phases show their progress: plan's search its bracketing's
// elapsed time, then its settling's replicates with an ETA; the checks of the demo and of
// the merge their count with an ETA; verify's game its elapsed time. --quiet silences them,
// and so does a stderr that is not a terminal.
func TestProgressOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs it")
	}
	// δ = 2e-3: a question the planner's table does not answer, so the search runs
	plan := []string{"plan", "--trials", "1000", "--delta", "2e-3", "--epsilon", "1"}
	searching := "\rplan: searching the trials per side that reach the power"
	if got := stderrOnTerminal(t, 0, plan...); !strings.Contains(got, searching+": bracketing  0:0") ||
		!regexp.MustCompile(regexp.QuoteMeta(searching)+": settling"+etaBar).MatchString(got) {
		t.Errorf("plan on a terminal showed %q; want the bracketing's elapsed time, then the settling's bar with an ETA", got)
	}
	if got := stderrOnTerminal(t, 0, append(plan, "--quiet")...); strings.Contains(got, "plan:") {
		t.Errorf("plan --quiet showed %q", got)
	}
	if _, stderr, code := runCLI(t, plan...); code != 0 || stderr != "" {
		t.Errorf("plan to a pipe: exit %d, stderr %q; want nothing", code, stderr)
	}
	dir := t.TempDir()
	demo := []string{"demo", "--variants", "strongly-convex", "--trials", "8", "--out", dir + "/demo"}
	checking := regexp.MustCompile(`\rchecking d2d/strongly-convex` + etaBar)
	if got := stderrOnTerminal(t, 0, demo...); !strings.Contains(got, "d2d/strongly-convex  [####################]  8/8") ||
		!checking.MatchString(got) {
		t.Errorf("demo on a terminal showed %q; want the trials' bar, then the checks' bar with an ETA", got)
	}
	if got := stderrOnTerminal(t, 0, append(demo, "--quiet", "--force")...); got != "" {
		t.Errorf("demo --quiet showed %q", got)
	}
	if _, stderr, code := runCLI(t, append(demo, "--force")...); code != 0 || stderr != "" {
		t.Errorf("demo to a pipe: exit %d, stderr %q; want nothing", code, stderr)
	}
	vspec := dir + "/verify.json"
	os.WriteFile(vspec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 2e-3}}`), 0o644)
	// merge: a bar over the parts' checkpoint files, with an ETA, then the replay's checks
	spec := dir + "/audit.json"
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d", "variants": ["strongly-convex"]}, "claim": {"epsilon": 1, "delta": 2e-3}, "trials": 8, "seed": 4}`), 0o644)
	for _, p := range []string{"0/2", "1/2"} {
		if out, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", p, "--out", dir+"/shards", "--controls=false"); code != 0 {
			t.Fatalf("part %s: exit %d: %s%s", p, code, out, stderr)
		}
	}
	if got := stderrOnTerminal(t, 0, "merge", dir+"/shards", "--out", dir+"/merged"); !strings.Contains(got, "merge: reading the parts' trials  [####################]  2/2") ||
		!checking.MatchString(got) {
		t.Errorf("merge on a terminal showed %q; want the parts' bar, then the checks' bar with an ETA", got)
	}
	// plan --spec: the search's settling with an ETA, then the calibration's elapsed time
	if got := stderrOnTerminal(t, 0, "plan", "--spec", spec, "--calibrate", "1s", "--controls=false"); !regexp.MustCompile(regexp.QuoteMeta(searching)+": settling"+etaBar).MatchString(got) ||
		!strings.Contains(got, "\rplan: timing the trials and checks on this machine (about 1s)  0:0") {
		t.Errorf("plan --spec on a terminal showed %q; want the search's bar with an ETA, then the calibration's time", got)
	}
	if got := stderrOnTerminal(t, 0, "plan", "--spec", spec, "--calibrate", "1s", "--controls=false", "--quiet"); strings.Contains(got, "plan:") {
		t.Errorf("plan --spec --quiet showed %q", got)
	}
	// an honest sample of 40 models a side: INCONCLUSIVE, exit 3, after the search for the
	// trials that would decide, whose settling has an ETA
	const verifying = "\rverify: the game on the models and its power"
	if got := stderrOnTerminal(t, exitInconclusive, "verify", "--spec", vspec, "--unlearned", "testdata/verify/good", "--retrained", "testdata/verify/retrained", "--out", dir+"/verify"); !strings.Contains(got, verifying+"  0:0") ||
		!regexp.MustCompile(regexp.QuoteMeta(verifying)+": settling"+etaBar).MatchString(got) {
		t.Errorf("verify on a terminal showed %q; want its elapsed time, then the settling's bar with an ETA", got)
	}
}
