// Command run runs the hostile corpus (bench/hostile/gen) against an audit binary, one
// case at a time, and checks each against issue 41's "done when": the exit status the case
// allows (2 with a message naming the file or field, or the right verdict), stderr at most
// 64 KiB, no raw ESC, BEL or C1 control on stdout or stderr, at most 500 MB of resident
// memory and 60 s, the files it protects byte-identical, no .audit.lock left behind, and
// for a case interrupted by SIGTERM an exit within 0.7 s of the signal.
//
//	bench/hostile/run.sh BINARY CORPUS [-case REGEXP] [-keep]
//
// Memory and time are GNU time's (/usr/bin/time -f '%M %e': the peak resident set in KiB,
// and the wall-clock seconds); a case is killed after 120 s. It prints a Markdown table and
// a summary line, and exits 1 when any case is not clean.
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/bench/hostile/corpus"
)

// The bounds of issue 41's "done when".
var (
	maxRSSBytes   = flag.Float64("rss", 500e6, "the bound on peak resident memory, bytes")
	maxSeconds    = flag.Float64("seconds", 60, "the bound on wall-clock seconds")
	maxStderr     = flag.Int("stderr", 64<<10, "the bound on stderr, bytes")
	maxStop       = flag.Float64("stop", 0.7, "the bound on seconds from SIGTERM to exit")
	timeout       = flag.Duration("timeout", 120*time.Second, "kill a case after this long")
	only          = flag.String("case", "", "run only the cases whose name matches this regular expression")
	keep          = flag.Bool("keep", false, "keep each case's working copy and outputs (under -work)")
	work          = flag.String("work", "", "the folder for the cases' working copies (default: a new one in $TMPDIR)")
	checks        = []string{"exit", "msg", "stderr", "esc", "rss", "time", "kept", "lock", "stop"}
	errNotRunning = errors.New("no child to signal")
)

// result is one case's measurements and checks.
type result struct {
	c             corpus.Case
	exit          int
	timedOut      bool
	rssKiB        int
	seconds       float64
	stderrBytes   int
	stop          float64 // seconds from SIGTERM to exit; -1 when no signal was sent
	ok            map[string]string
	stderrHead    string
	setupFailures string
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: bench/hostile/run.sh BINARY CORPUS [flags]")
		flag.PrintDefaults()
	}
	// the flags may follow the two arguments
	var pos []string
	args := os.Args[1:]
	for len(args) > 0 {
		if err := flag.CommandLine.Parse(args); err != nil {
			os.Exit(2)
		}
		args = flag.Args()
		if len(args) > 0 {
			pos, args = append(pos, args[0]), args[1:]
		}
	}
	if len(pos) != 2 {
		flag.Usage()
		os.Exit(2)
	}
	bin, dir := pos[0], pos[1]
	bin, err := filepath.Abs(bin)
	if err != nil {
		fatal(err)
	}
	cases, err := corpus.Read(dir)
	if err != nil {
		fatal(err)
	}
	var re *regexp.Regexp
	if *only != "" {
		if re, err = regexp.Compile(*only); err != nil {
			fatal(err)
		}
	}
	root := *work
	if root == "" {
		if root, err = os.MkdirTemp("", "hostile-run-"); err != nil {
			fatal(err)
		}
	}
	if !*keep {
		defer os.RemoveAll(root)
	}
	fmt.Printf("binary %s, corpus %s, %s\n\n", bin, dir, time.Now().UTC().Format(time.RFC3339))
	fmt.Println("| case | cause | exit (want) | RSS MB | s | stderr B | SIGTERM→exit s | " + strings.Join(checks, " | ") + " | clean |")
	fmt.Println("|---|---|---|---|---|---|---|" + strings.Repeat("---|", len(checks)) + "---|")
	var results []result
	for _, c := range cases {
		if re != nil && !re.MatchString(c.Name) {
			continue
		}
		r := runCase(bin, filepath.Join(dir, c.Name), root, c)
		results = append(results, r)
		printRow(r)
		if !*keep {
			os.RemoveAll(filepath.Join(root, c.Name))
		}
	}
	if len(results) == 0 {
		fatal(fmt.Errorf("no case to run in %s", dir))
	}
	failed := map[string]int{}
	var notClean []string
	fmt.Println()
	for _, r := range results {
		var bad []string
		for _, k := range checks {
			if r.ok[k] == "FAIL" {
				bad = append(bad, k)
				failed[k]++
			}
		}
		if len(bad) > 0 {
			notClean = append(notClean, r.c.Name)
			fmt.Printf("- %s: %s; stderr %s%s\n", r.c.Name, strings.Join(bad, ", "), r.stderrHead, r.setupFailures)
		}
	}
	var counts []string
	for _, k := range checks {
		if failed[k] > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", k, failed[k]))
		}
	}
	fmt.Printf("\n%d cases: %d clean, %d not clean", len(results), len(results)-len(notClean), len(notClean))
	if len(counts) > 0 {
		fmt.Printf(" (failing: %s)", strings.Join(counts, ", "))
	}
	fmt.Println()
	if len(notClean) > 0 {
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "run:", err)
	os.Exit(2)
}

// runCase copies the case's folder, runs its setup and its command, and checks them.
func runCase(bin, src, root string, c corpus.Case) result {
	r := result{c: c, stop: -1, ok: map[string]string{}}
	for _, k := range checks {
		r.ok[k] = "-"
	}
	dir := filepath.Join(root, c.Name)
	os.RemoveAll(dir)
	// cp -a keeps hard links within the folder, symbolic links, FIFOs and holes
	if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
		r.setupFailures = fmt.Sprintf("; copy: %v %s", err, out)
		r.ok["exit"] = "FAIL"
		return r
	}
	for _, s := range c.Setup {
		cmd := exec.Command(bin, s...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			r.setupFailures += fmt.Sprintf("; setup %v: %v: %.200q", s, err, out)
		}
	}
	if r.setupFailures != "" {
		r.ok["exit"] = "FAIL"
		return r
	}
	kept := map[string]string{}
	for _, k := range c.Keep {
		kept[k] = digest(filepath.Join(dir, k))
	}
	locks := lockFiles(dir)

	outFile, errFile, timeFile := dir+".stdout", dir+".stderr", dir+".time"
	stdout, err1 := os.Create(outFile)
	stderr, err2 := os.Create(errFile)
	if err := errors.Join(err1, err2); err != nil {
		fatal(err)
	}
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M %e", "-o", timeFile, bin}, c.Args...)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	var signalled time.Time
	var sigterm <-chan time.Time
	if c.SigtermAfter > 0 {
		sigterm = time.After(time.Duration(c.SigtermAfter * float64(time.Second)))
	}
	kill := time.After(*timeout)
wait:
	for {
		select {
		case <-done:
			break wait
		case <-sigterm:
			// the audit process is /usr/bin/time's child: GNU time would die of the signal
			// itself without reporting
			if err := signalChildren(cmd.Process.Pid, syscall.SIGTERM); err == nil {
				signalled = time.Now()
			}
		case <-kill:
			// the audit process first, so that GNU time reports its memory; then the group
			r.timedOut = true
			signalChildren(cmd.Process.Pid, syscall.SIGKILL)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
			break wait
		}
	}
	exited := time.Now()
	stdout.Close()
	stderr.Close()
	if !signalled.IsZero() {
		r.stop = exited.Sub(signalled).Seconds()
	}
	r.exit = cmd.ProcessState.ExitCode()
	r.parseTime(timeFile)

	errBytes, _ := os.ReadFile(errFile)
	outBytes, _ := os.ReadFile(outFile)
	r.stderrBytes = len(errBytes)
	r.stderrHead = fmt.Sprintf("%.160q", errBytes)
	pass := func(k string, ok bool) {
		r.ok[k] = map[bool]string{true: "ok", false: "FAIL"}[ok]
	}
	pass("exit", !r.timedOut && slices.Contains(c.Exit, r.exit))
	// a Go runtime crash exits 2 too, with a stack dump: never a clear message
	crashed := slices.ContainsFunc([]string{"fatal error: ", "panic: ", "\ngoroutine "}, func(w string) bool { return bytes.Contains(errBytes, []byte(w)) })
	if r.exit == 2 || len(c.NotStderr) > 0 || crashed {
		s := string(errBytes)
		ok := !crashed
		if r.exit == 2 {
			for _, w := range c.Stderr {
				ok = ok && strings.Contains(s, w)
			}
			if len(c.StderrAny) > 0 {
				ok = ok && slices.ContainsFunc(c.StderrAny, func(w string) bool { return strings.Contains(s, w) })
			}
			ok = ok && len(bytes.TrimSpace(errBytes)) > 0
		}
		for _, w := range c.NotStderr {
			ok = ok && !strings.Contains(s, w)
		}
		pass("msg", ok)
	}
	pass("stderr", len(errBytes) <= *maxStderr)
	pass("esc", !rawControl(errBytes) && !rawControl(outBytes))
	pass("rss", r.rssKiB > 0 && float64(r.rssKiB)*1024 <= *maxRSSBytes)
	pass("time", !r.timedOut && r.seconds <= *maxSeconds)
	if len(c.Keep) > 0 {
		ok := true
		for _, k := range c.Keep {
			ok = ok && digest(filepath.Join(dir, k)) == kept[k]
		}
		pass("kept", ok)
	}
	after := lockFiles(dir)
	stale := false
	for p, d := range after {
		if before, ok := locks[p]; !ok || before != d {
			stale = true
		}
	}
	pass("lock", !stale)
	if c.SigtermAfter > 0 && !signalled.IsZero() {
		pass("stop", r.stop <= *maxStop)
	}
	if !*keep {
		os.Remove(outFile)
		os.Remove(errFile)
		os.Remove(timeFile)
	}
	return r
}

// parseTime reads GNU time's report: its last line is "%M %e"; a line before it may say
// "Command exited with non-zero status N" or "Command terminated by signal N".
func (r *result) parseTime(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines[:len(lines)-1] {
		if n, ok := strings.CutPrefix(l, "Command terminated by signal "); ok {
			if s, err := strconv.Atoi(strings.TrimSpace(n)); err == nil {
				r.exit = 128 + s
			}
		}
	}
	f := strings.Fields(lines[len(lines)-1])
	if len(f) == 2 {
		r.rssKiB, _ = strconv.Atoi(f[0])
		r.seconds, _ = strconv.ParseFloat(f[1], 64)
	}
}

// signalChildren sends sig to the children of pid (the audit process under GNU time).
func signalChildren(pid int, sig syscall.Signal) error {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return err
	}
	sent := false
	for _, f := range strings.Fields(string(b)) {
		if child, err := strconv.Atoi(f); err == nil && syscall.Kill(child, sig) == nil {
			sent = true
		}
	}
	if !sent {
		return errNotRunning
	}
	return nil
}

// rawControl reports an ESC, a BEL or a C1 control (U+0080–U+009F, or a lone byte
// 0x80–0x9F that is not part of a UTF-8 sequence), any of which a terminal may act on.
func rawControl(b []byte) bool {
	if bytes.IndexByte(b, 0x1b) >= 0 || bytes.IndexByte(b, 0x07) >= 0 {
		return true
	}
	for len(b) > 0 {
		c, n := utf8.DecodeRune(b)
		if c >= 0x80 && c <= 0x9f || c == utf8.RuneError && n == 1 && b[0] >= 0x80 && b[0] <= 0x9f {
			return true
		}
		b = b[n:]
	}
	return false
}

// digest is a file's or a folder's content, links and kinds, as one string.
func digest(path string) string {
	var b strings.Builder
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(path, p)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", rel, err)
			return nil
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, "%s -> %s\n", rel, target)
		case t.IsRegular():
			data, err := os.ReadFile(p)
			fmt.Fprintf(&b, "%s %x %v\n", rel, sha256.Sum256(data), err)
		default:
			fmt.Fprintf(&b, "%s %v\n", rel, t)
		}
		return nil
	})
	return b.String()
}

// lockFiles are the .audit.lock files under dir, by path, with their contents.
func lockFiles(dir string) map[string]string {
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == ".audit.lock" {
			m[p] = digest(p)
		}
		return nil
	})
	return m
}

func printRow(r result) {
	want := make([]string, len(r.c.Exit))
	for i, e := range r.c.Exit {
		want[i] = strconv.Itoa(e)
	}
	exit := strconv.Itoa(r.exit)
	if r.timedOut {
		exit = "killed"
	}
	stop := "-"
	if r.stop >= 0 {
		stop = fmt.Sprintf("%.2f", r.stop)
	}
	clean := "clean"
	var cells []string
	for _, k := range checks {
		cells = append(cells, r.ok[k])
		if r.ok[k] == "FAIL" {
			clean = "**NOT CLEAN**"
		}
	}
	cause := "earlier"
	if r.c.Cause > 0 {
		cause = strconv.Itoa(r.c.Cause)
	}
	fmt.Printf("| %s | %s | %s (%s) | %.0f | %.2f | %d | %s | %s | %s |\n", r.c.Name, cause, exit, strings.Join(want, ","),
		float64(r.rssKiB)*1024/1e6, r.seconds, r.stderrBytes, stop, strings.Join(cells, " | "), clean)
}
