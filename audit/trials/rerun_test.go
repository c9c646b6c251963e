package trials

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The "rerun it:" command a merge prints is pasted into a shell: run through sh -c with a
// stand-in audit program, it must reach the folder and the arguments the manifest holds,
// however hostile, and execute nothing else (issue 29: a spec named
// "audit $(touch PWNED).json" ran touch).
func TestRerunCommandIsQuoted(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	os.Mkdir(bin, 0o755)
	// the stand-in prints its folder and its arguments, each ended by NUL
	if err := os.WriteFile(filepath.Join(bin, "audit"), []byte("#!/bin/sh\nprintf '%s\\0' \"$PWD\" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hostile := []string{"audit $(touch PWNED).json", "`touch PWNED2`", "it's \"q\"", "a;touch PWNED3", "line\nbreak", "-rf", "$HOME *"}
	for _, h := range hostile {
		work := filepath.Join(root, "work "+strings.ReplaceAll(h, "/", "_"))
		out := filepath.Join(root, "out "+strings.ReplaceAll(h, "/", "_"))
		for _, d := range []string{work, filepath.Join(out, "shard-0-of-2")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"--spec=" + h, "--data=" + h, h}
		f := FoundShard{Dir: filepath.Join(out, "shard-0-of-2"), Shard: Shard{0, 2}, Manifest: ShardManifest{Dir: work, Args: args}}
		line := rerunCommand(f, Shard{1, 2})
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin")
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		words := strings.Split(strings.TrimSuffix(string(got), "\x00"), "\x00")
		want := append(append([]string{work, "run"}, args...), "--shard=1/2", "--out="+out)
		if !slices.Equal(words, want) {
			t.Errorf("printed %s\nreceived %q\nwant     %q", line, words, want)
		}
		for _, d := range []string{root, work} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "PWNED") {
					t.Errorf("%s ran a command: %s", line, filepath.Join(d, e.Name()))
				}
			}
		}
	}
}
