package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goTestFlags are the go command's own test flags (go help testflag) that CONTRIBUTING.md
// may use; any other flag must be defined by the package's tests.
var goTestFlags = map[string]bool{"run": true, "skip": true, "bench": true, "benchtime": true, "fuzz": true,
	"fuzztime": true, "short": true, "race": true, "v": true, "count": true, "timeout": true, "cpu": true}

// shellWords splits a command line into words, honouring single quotes, and stops at a
// comment.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for _, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			w.WriteRune(r)
		case r == '\'':
			quoted, in = true, true
		case r == '#' && !in:
			return words
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// codeLines are the lines of a Markdown page's fenced code blocks.
func codeLines(page string) []string {
	var lines []string
	in := false
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if in {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

// testSources is the text of a package folder's test files.
func testSources(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	var b strings.Builder
	for _, f := range files {
		s, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(s)
	}
	return b.String()
}

var testName = regexp.MustCompile(`\b(Test|Fuzz|Benchmark)[A-Z0-9]\w*`)

// checkGoTest checks one go test command: its packages exist, the tests its -run, -fuzz
// and -bench name are defined there, and every flag is go test's or the package's own.
func checkGoTest(t *testing.T, root, line string, words []string) int {
	t.Helper()
	var pkgs, names, flags []string
	for i := 2; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "./"):
			pkgs = append(pkgs, w)
		case strings.HasPrefix(w, "-"):
			name, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
			flags = append(flags, name)
			if (name == "run" || name == "fuzz" || name == "bench" || name == "skip") && !hasVal && i+1 < len(words) {
				val = words[i+1]
				i++
			} else if goTestFlags[name] && !hasVal && name != "short" && name != "race" && name != "v" && i+1 < len(words) {
				i++ // the flag's value
			}
			if name == "run" || name == "fuzz" {
				names = append(names, testName.FindAllString(val, -1)...)
			}
		}
	}
	if len(pkgs) == 0 {
		t.Errorf("CONTRIBUTING.md: %q names no package", line)
		return 0
	}
	checked := 0
	for _, p := range pkgs {
		if p == "./..." {
			checked++
			continue
		}
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(p, "./")))
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("CONTRIBUTING.md: %q: no package %s", line, p)
			continue
		}
		src := testSources(t, dir)
		for _, n := range names {
			if !strings.Contains(src, "func "+n+"(") {
				t.Errorf("CONTRIBUTING.md: %q: %s has no %s", line, p, n)
			}
			checked++
		}
		for _, f := range flags {
			if goTestFlags[f] {
				continue
			}
			if strings.HasPrefix(f, "rapid.") {
				if !strings.Contains(src, `"pgregory.net/rapid"`) {
					t.Errorf("CONTRIBUTING.md: %q: %s has no rapid tests for -%s", line, p, f)
				}
				continue
			}
			if !regexp.MustCompile(`flag\.\w+\("` + regexp.QuoteMeta(f) + `"`).MatchString(src) {
				t.Errorf("CONTRIBUTING.md: %q: %s's tests define no flag -%s", line, p, f)
			}
			checked++
		}
	}
	return checked
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	backticks = regexp.MustCompile("`([^`\\s]+)`")
	pathLike  = regexp.MustCompile(`^[\w.-]+(/[\w.-]+)+/?$`)
)

// pending are files CONTRIBUTING.md links that another work package of issue 42 is
// writing; the test fails once one exists, so the list only shrinks.
var pending = map[string]string{}

// CONTRIBUTING.md names nothing that is not there: every go test command's packages,
// tests and flags exist, every go run, go build and go install names a package, every
// script and Python fixture maker, every linked or quoted path and every quoted test
// name exists, every go generate runs in a folder with a go:generate line, and the race
// and benchmark runs it shows are the ones .ci/run runs. Planted: a test renamed
// (TestPowerGoldenX), a flag misspelt (-update-powers), a script moved, and a package
// missing from .ci/run's race line each fail it.
func TestContributingCommandsExist(t *testing.T) {
	root := repoRoot(t)
	page := readRoot(t, root, "CONTRIBUTING.md")
	ci := readRoot(t, root, ".ci/run")
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil
	}
	checked := 0
	for _, line := range codeLines(page) {
		words := shellWords(line)
		if len(words) == 0 {
			continue
		}
		for i, w := range words {
			if w == "&&" || w == ";" {
				continue
			}
			switch {
			case strings.HasPrefix(w, "(cd") && i+1 < len(words):
				dir := words[i+1]
				src, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
				found := false
				for _, f := range src {
					b, _ := os.ReadFile(f)
					found = found || strings.Contains(string(b), "//go:generate ")
				}
				if !found {
					t.Errorf("CONTRIBUTING.md: %q: %s has no go:generate line", line, dir)
				}
				checked++
			case strings.HasSuffix(w, ".sh") || strings.HasSuffix(w, ".py"):
				if !exists(w) {
					t.Errorf("CONTRIBUTING.md: %q: no script %s", line, w)
				}
				checked++
			}
		}
		if words[0] == "CGO_ENABLED=1" {
			words = words[1:]
		}
		if len(words) < 2 || words[0] != "go" {
			continue
		}
		switch words[1] {
		case "test":
			checked += checkGoTest(t, root, line, words)
			if strings.Contains(line, "-race") {
				for _, w := range words {
					if strings.HasPrefix(w, "./") && !strings.Contains(ci, " "+w+" ") && !strings.Contains(ci, " "+w+" \\") {
						t.Errorf("CONTRIBUTING.md's race run names %s, which .ci/run's does not", w)
					}
				}
			}
			if strings.Contains(line, "-benchtime") && !strings.Contains(ci, "\n"+line+"\n") {
				t.Errorf("CONTRIBUTING.md's benchmark smoke run %q is not a line of .ci/run", line)
			}
		case "run", "build", "install":
			for _, w := range words[2:] {
				if strings.HasPrefix(w, "./") && w != "./..." {
					if !exists(strings.TrimPrefix(w, "./")) {
						t.Errorf("CONTRIBUTING.md: %q: no package %s", line, w)
					}
					checked++
				}
			}
		}
	}
	for _, m := range mdLink.FindAllStringSubmatch(page, -1) {
		switch who, ok := pending[m[1]]; {
		case ok && exists(m[1]):
			t.Errorf("%s, %s, exists now: delete it from pending", m[1], who)
		case !ok && !strings.Contains(m[1], "://") && !exists(m[1]):
			t.Errorf("CONTRIBUTING.md links %s, which does not exist", m[1])
		}
		checked++
	}
	var allTests strings.Builder
	walkRepo(t, root, func(rel string, b []byte) {
		if strings.HasSuffix(rel, "_test.go") {
			allTests.Write(b)
		}
	})
	for _, m := range backticks.FindAllStringSubmatch(page, -1) {
		s := strings.TrimRight(m[1], ",.;:")
		switch {
		case testName.MatchString(s) && testName.FindString(s) == s:
			if !strings.Contains(allTests.String(), "func "+s+"(") {
				t.Errorf("CONTRIBUTING.md names %s, which no test file defines", s)
			}
			checked++
		case pathLike.MatchString(s) && !strings.HasPrefix(s, "$") && !strings.Contains(s, "@"):
			if !exists(s) {
				t.Errorf("CONTRIBUTING.md names %s, which does not exist", s)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Fatalf("only %d names checked in CONTRIBUTING.md: its commands were not read", checked)
	}
	t.Logf("%d names checked", checked)
}
