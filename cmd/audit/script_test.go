package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// TestMain lets the scripts run the real binary: "exec audit …" in a script runs this
// test binary as the audit command, in its own process, with its exit code and streams.
// Every report the tests write states one audit date, so that two runs compare byte for
// byte whatever the clock says; the date's own tests set or clear it.
func TestMain(m *testing.M) {
	if os.Getenv(reports.SourceDateEpoch) == "" {
		os.Setenv(reports.SourceDateEpoch, testDateEpoch)
	}
	testscript.Main(m, map[string]func(){"audit": main})
}

// testDateEpoch is the tests' SOURCE_DATE_EPOCH: 2025-03-01T12:00:00Z.
const testDateEpoch = "1740830400"

// The end-to-end scripts of testdata/script: every command as a user types it, and the
// bad inputs, each checked for its exit code, its messages on stderr, its results on
// stdout and the files it writes or must not write. $TESTDATA is this folder's testdata,
// $EXAMPLES the repository's examples, $ARTIFACTS artifact/testdata and $DATASETS the
// repository's datasets/: nothing outside the repository.
func TestScripts(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("TESTDATA", filepath.Join(wd, "testdata"))
			env.Setenv("EXAMPLES", filepath.Join(wd, "..", "..", "examples"))
			env.Setenv("ARTIFACTS", filepath.Join(wd, "..", "..", "artifact", "testdata"))
			env.Setenv("DATASETS", filepath.Join(wd, "..", "..", "datasets"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"hostile": cmdHostile,
		},
	})
}

// cmdExits runs a command and checks its exit code: "exits 2 audit verify …". Its stdout
// and stderr are then what the script's stdout and stderr commands match.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdHostile writes a malformed binary file a script cannot spell in text:
// "hostile KIND FILE".
func cmdHostile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hostile KIND FILE")
	}
	out := hostileFile(args[0])
	if out == nil {
		ts.Fatalf("hostile: unknown kind %q", args[0])
	}
	if err := os.WriteFile(ts.MkAbs(args[1]), out, 0o644); err != nil {
		ts.Fatalf("hostile: %v", err)
	}
}
