package props_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docBlocks are a Markdown file's fenced blocks, by their language tag, in order.
func docBlocks(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string][]string{}
	var lang string
	var cur strings.Builder
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && strings.HasPrefix(line, "```"):
			in, lang = true, strings.TrimPrefix(line, "```")
			cur.Reset()
		case in && line == "```":
			in = false
			blocks[lang] = append(blocks[lang], cur.String())
		case in:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// TestPropsTutorial runs docs/props-in-your-tests.md as a newcomer would: a module of
// their own beside a clone of this one (here a symbolic link to it), the page's commands
// in order, its test file as given, and the page's sample output checked line by line
// against the real output ("…" stands for the rest of a line; durations are left out).
func TestPropsTutorial(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlocks(t, filepath.Join(root, "docs", "props-in-your-tests.md"))
	if len(blocks["sh"]) != 2 || len(blocks["go"]) != 1 || len(blocks["console"]) != 1 {
		t.Fatalf("the page's blocks changed: %d sh, %d go, %d console; want 2, 1, 1", len(blocks["sh"]), len(blocks["go"]), len(blocks["console"]))
	}
	tmp := t.TempDir()
	if err := os.Symlink(root, filepath.Join(tmp, "unlearnaudit")); err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(tmp, "myunlearner")
	models := filepath.Join(root, "cmd", "audit", "testdata", "verify")
	for dst, src := range map[string]string{"unlearned": "good", "retrained": "retrained"} {
		if err := os.CopyFS(filepath.Join(mod, "models", dst), os.DirFS(filepath.Join(models, src))); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/myunlearner\n\ngo 1.26.0\n")
	write("forget_test.go", blocks["go"][0])
	var out []byte
	for _, block := range blocks["sh"] {
		for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir = mod
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
			got, err := cmd.CombinedOutput()
			if line == "go test -v ./..." {
				// the page's second test fails on purpose: go test exits 1
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Fatalf("%s: %v, want exit 1\n%s", line, err, got)
				}
				out = got
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", line, err, got)
			}
		}
	}
	duration := regexp.MustCompile(` \([0-9.]+s\)$`)
	var real []string
	for _, l := range strings.Split(string(out), "\n") {
		real = append(real, duration.ReplaceAllString(l, ""))
	}
	next := 0
	for _, want := range strings.Split(strings.TrimSpace(blocks["console"][0]), "\n") {
		head, tail, elided := strings.Cut(want, "…")
		found := false
		for ; next < len(real) && !found; next++ {
			l := real[next]
			found = l == want || elided && strings.HasPrefix(l, head) && strings.HasSuffix(l, tail) && len(l) >= len(head)+len(tail)
		}
		if !found {
			t.Errorf("the page shows %q; not in the real output, in order:\n%s", want, out)
			return
		}
	}
}
