package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// audit version, --version, -version and -V print one line: the release, then the build.
func TestVersionSpellings(t *testing.T) {
	var first string
	for _, arg := range []string{"version", "--version", "-version", "-V"} {
		stdout, stderr, code := runCLI(t, arg)
		if code != exitPass || stderr != "" || !strings.HasPrefix(stdout, "audit "+version+" (") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("audit %s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
		if first == "" {
			first = stdout
		} else if stdout != first {
			t.Errorf("audit %s printed %q, audit version %q", arg, stdout, first)
		}
	}
	// a flag it does not take is refused, not ignored
	if stdout, stderr, code := runCLI(t, "version", "--json"); code != exitUsage || stdout != "" || !strings.Contains(stderr, `version takes no flags or arguments, got "--json"`) {
		t.Errorf("audit version --json: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A binary built with go build in this checkout names the commit it was built from.
func TestVersionNamesTheCommit(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the toolchain stamps no commit", err)
	}
	// -buildvcs=true: GOFLAGS may turn stamping off, as it is on the development machines
	bin := filepath.Join(t.TempDir(), "audit")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "commit " + strings.TrimSpace(string(head))[:12]; !strings.Contains(string(out), want) {
		t.Errorf("audit --version: %q, want %q", out, want)
	}
}

func TestProgName(t *testing.T) {
	for arg0, want := range map[string]string{
		"audit":                            "audit",
		"./audit":                          "./audit",
		"/opt/tools/audit":                 "/opt/tools/audit",
		"/tmp/go-build1234/b001/exe/audit": "audit", // go run
		"":                                 "audit",
	} {
		if got := progName(arg0); got != want {
			t.Errorf("progName(%q) = %q, want %q", arg0, got, want)
		}
	}
}
