// Command audit verifies machine unlearning: it recomputes certificates, runs unlearning
// methods against retraining from scratch, measures what the published models leak, and
// writes compliance reports. Run "audit help" for the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	_ "github.com/unlearnaudit/unlearnaudit/audit/methods" // every method registers itself: the CLI only looks them up
	"github.com/unlearnaudit/unlearnaudit/internal/buildinfo"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// version is the tool version written into every report.
const version = "0.1.0"

// Exit codes.
const (
	exitPass         = 0
	exitFail         = 1
	exitUsage        = 2
	exitInconclusive = 3
	exitInterrupted  = 130 // 128 + SIGINT, the shells' convention; SIGTERM exits with it too
)

// interruptedHint is what an interrupted command says: demo, run and merge keep the trials
// they finished, so the same command picks up where it stopped; the others keep nothing.
func interruptedHint(args []string) string {
	if len(args) > 0 && slices.Contains([]string{"demo", "run", "merge"}, args[0]) {
		return "interrupted; finished trials are kept: rerun the same command to resume"
	}
	return "interrupted"
}

func main() {
	invokedAs = progName(os.Args[0])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process at once
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	code := exitCode(err)
	switch {
	case code == exitInterrupted:
		fmt.Fprintln(os.Stderr, "audit:", interruptedHint(os.Args[1:]))
	case err != nil && code == exitUsage:
		fmt.Fprint(os.Stderr, "audit: "+errorText(err)+"\n")
	}
	os.Exit(code)
}

// maxErrorBytes caps the error line main writes ("audit: ", the message, a newline): 64 KiB.
const maxErrorBytes = clip.MaxLine

// errorText is err's message as main prints it after "audit: " (clip.Line).
func errorText(err error) string { return clip.Line("audit: ", err.Error()) }

// invokedAs is the command as the user runs it, for the commands the hints print.
var invokedAs = "audit"

// progName is how hints name the binary given its argv[0]: as typed when it was a path
// (./audit, /opt/bin/audit) or a name found on the PATH; "audit" for go run's temporary
// build, whose path is gone when it exits (the README installs the binary instead).
func progName(arg0 string) string {
	if arg0 == "" || strings.Contains(filepath.ToSlash(arg0), "/go-build") {
		return "audit"
	}
	return arg0
}

// verdictError carries a non-passing overall verdict: exit 1 or 3.
type verdictError struct{ verdict verdict.Verdict }

func (e verdictError) Error() string { return "overall verdict " + string(e.verdict) }

func exitCode(err error) int {
	var ve verdictError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitPass
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ve) && ve.verdict == verdict.Fail, errors.As(err, new(checkFailed)):
		return exitFail
	case errors.As(err, &ve):
		return exitInconclusive
	}
	return exitUsage
}

// verdictErr turns an overall verdict into run's result.
func verdictErr(v verdict.Verdict) error {
	if v == verdict.Pass {
		return nil
	}
	return verdictError{v}
}

const usageText = `usage: audit <command> [flags]

Commands:
  demo      audit every method's variants on built-in or given data, write a report
  run       run the audit a spec file describes (run --spec FILE), write a report;
            with --shard I/N (or in a Slurm array or Kubernetes Indexed Job) run part I of N
  merge     merge the parts of a sharded run and report as the one-machine run would
  verify    audit models trained elsewhere (verify --unlearned DIR [--retrained DIR] --spec FILE, or
            --epsilon E --delta D; with no claim it measures and gives no verdict)
  report    re-render a finished audit from its report.json (Markdown, HTML, PDF or JSON)
  check-report  verify a report signed with --sign-key (check-report --key PUB.pem report.json.dsse [report.json])
  keygen    make an evidence key (--evidence-key) and an Ed25519 key pair (--sign-key, check-report --key)
  canaries  draw the canaries a one-run audit trains on (canaries --seed S --out FILE; then verify --one-run)
  bounds    compute a method's certificate from declared constants (bounds METHOD ...)
  estimate  estimate the Rényi divergence between two samples, with an interval
  epsilon   bound ε from below from per-example scores of two kinds of models
  plan      how large an ε a number of trials can resolve, and how many trials a claim needs
  reproduce re-run a paper's experiment (reproduce EXPERIMENT ...; "audit reproduce help" lists them)
  version   print the version and the commit it was built from (also --version, -V)

Exit codes: 0 every check passed, 1 a check failed, 2 bad usage or bad input,
3 inconclusive, 130 interrupted (demo, run and merge resume when rerun). Run "audit <command> -h" for a command's flags.
`

// usage is usageText followed by the registered methods, their demo variants and their
// experiments.
func usage() string {
	var b strings.Builder
	b.WriteString(usageText)
	b.WriteString("\nMethods (audit demo --variants picks among their variants):\n")
	for _, m := range audit.Methods() {
		fmt.Fprintf(&b, "  %-9s %s\n", m.Name(), m.Summary())
		for _, v := range audit.DemoVariantsOf(m) {
			fmt.Fprintf(&b, "            %-16s %s\n", v.Name, v.Summary)
		}
		if es := audit.ExperimentsOf(m); len(es) > 0 {
			names := make([]string, len(es))
			for i, e := range es {
				names[i] = e.Name
			}
			fmt.Fprintf(&b, "            experiments: %s\n", strings.Join(names, ", "))
		}
	}
	return b.String()
}

// run is the whole program, testable without a process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "run":
		return runRun(ctx, args[1:], stdout, stderr)
	case "merge":
		return runMerge(ctx, args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "verify":
		return runVerify(ctx, args[1:], stdout, stderr)
	case "check-report":
		return runCheckReport(args[1:], stdout, stderr)
	case "keygen":
		return runKeygen(args[1:], stdout, stderr)
	case "canaries":
		return runCanaries(args[1:], stdout, stderr)
	case "bounds":
		return runBounds(ctx, args[1:], stdout, stderr)
	case "estimate":
		return runEstimate(ctx, args[1:], stdout, stderr)
	case "epsilon":
		return runEpsilon(ctx, args[1:], stdout, stderr)
	case "plan":
		return runPlan(ctx, args[1:], stdout, stderr)
	case "reproduce":
		return runReproduce(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version", "-V":
		if len(args) > 1 { // refused, not ignored: `version --json` printed text
			return fmt.Errorf("%s takes no flags or arguments, got %s", args[0], clip.Quote(strings.Join(args[1:], " ")))
		}
		fmt.Fprintln(stdout, "audit", buildinfo.Describe(version, buildinfo.Read()))
		return nil
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[1] != "help" { // audit help CMD: the command's own help
			err := run(ctx, []string{args[1], "-h"}, stdin, stdout, stdout)
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
		fmt.Fprint(stdout, usage())
		return nil
	}
	fmt.Fprint(stderr, usage())
	return fmt.Errorf("unknown command %s", clip.Quote(args[0]))
}

// parseFlags parses a subcommand's flags, turning parse errors into usage errors (the
// FlagSet has already printed the message and the usage).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseQuietly(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %s", fs.Name(), clip.Quote(fs.Arg(0)))
	}
	return nil
}

// parseQuietly parses flags with the usage shown once, on -h, and any other error as one
// usage error. The flag package prints a parse error and the usage itself, and main
// prints the error again: it is silenced while parsing.
func parseQuietly(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := audit.ParseFlags(fs, args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return err
		}
		return fmt.Errorf("%s: %v (run \"%s %s -h\" for the flags)", fs.Name(), err, invokedAs, fs.Name())
	}
	if err := cliflag.Conflicts(fs); err != nil {
		return fmt.Errorf("%s: %v", fs.Name(), err)
	}
	return nil
}

// parseInterleaved parses flags that may stand among positional arguments, in any order
// (audit merge DIR --out OUT DIR), and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseQuietly(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
}

// resultFlags is the command line that decides a report: "audit", the command, and every
// flag given, as --name=value in name order. Flags that change only where or how results
// are shown, or how fast or where they come (--out, --formats, --workers, --fresh, --quiet,
// --json, --shard, --force), are left out, so that the same inputs and seed still give the
// same report bytes, however the trials were run.
func resultFlags(fs *flag.FlagSet) []string {
	return append([]string{"audit", fs.Name()}, cliflag.Given(fs, "out", "workers", "fresh", "quiet", "json", "formats", "shard", "force", "evidence-key", "sign-key")...)
}

// replayArgs are the flags a shard's manifest keeps for audit merge to run the command
// again: resultFlags' and --formats, which decides the renderings the merge writes.
func replayArgs(fs *flag.FlagSet) []string {
	return cliflag.Given(fs, "out", "workers", "fresh", "quiet", "json", "shard", "force", "evidence-key", "sign-key")
}
