package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docFiles are the pages whose commands the tests check: the README and every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../../README.md"}, files...)
	if len(files) < 2 {
		t.Fatalf("no pages in docs/: %v", files)
	}
	return files
}

// The docs' sample outputs are the commands' real outputs: every console block whose
// command is a deterministic, fast one (bounds; plan's table and one-model answer, which
// docs/models-trained-elsewhere.md shows instead of typing its figures) is run and
// compared line for line.
func TestREADMESamplesAreRealOutputs(t *testing.T) {
	checked, plans := 0, 0
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range readmeSamples(string(b)) {
			plan := len(s.args) > 0 && s.args[0] == "plan" && (slices.Contains(s.args, "--table") || slices.Contains(s.args, "--models"))
			if len(s.args) < 1 || s.args[0] != "bounds" && !plan {
				continue
			}
			if plan {
				plans++
			} else {
				checked++
			}
			out, errOut, code := runCLI(t, s.args...)
			if code != exitPass {
				t.Errorf("%s: %v: exit %d: %s", f, s.args, code, errOut)
				continue
			}
			if out != s.output {
				t.Errorf("%s: sample of %v differs from the command's output.\ndoc:\n%s\ncommand:\n%s", f, s.args, s.output, out)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("%d samples of a bounds command found in the docs, want the 5 of docs/reproducing-the-papers.md: the check ran too little", checked)
	}
	if plans < 2 {
		t.Fatalf("%d samples of plan --table or --models found in the docs, want the 2 of docs/models-trained-elsewhere.md", plans)
	}
}

type readmeSample struct {
	args   []string
	output string
}

// auditPrefixes are how the docs invoke the CLI: the installed binary, or go run from a clone.
var auditPrefixes = []string{"audit ", "go run ./cmd/audit "}

// trimAudit returns the arguments of a command line that invokes the CLI.
func trimAudit(line string) (string, bool) {
	for _, p := range auditPrefixes {
		if rest, ok := strings.CutPrefix(line, p); ok {
			return rest, true
		}
	}
	return "", false
}

// readmeSamples reads ```console blocks: a "$ audit …" (or "$ go run ./cmd/audit …") line,
// continued by a trailing backslash, and the output lines up to the next command or the
// block's end.
func readmeSamples(md string) []readmeSample {
	var out []readmeSample
	inBlock := false
	var cur *readmeSample
	var cmd strings.Builder
	continuing := false
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for line := range strings.SplitSeq(md, "\n") {
		switch {
		case strings.HasPrefix(line, "```console"):
			inBlock = true
			continue
		case inBlock && strings.HasPrefix(line, "```"):
			flush()
			inBlock = false
			continue
		case !inBlock:
			continue
		}
		rest, isCmd := trimAudit(strings.TrimPrefix(line, "$ "))
		isCmd = isCmd && strings.HasPrefix(line, "$ ")
		if strings.HasPrefix(line, "$ ") && !isCmd && !continuing {
			flush() // another program's command: its output is not a sample
			continue
		}
		if continuing || isCmd {
			if !continuing {
				flush()
				cmd.Reset()
				cmd.WriteString(rest)
			} else {
				cmd.WriteString(" " + strings.TrimSpace(line))
			}
			continuing = strings.HasSuffix(line, "\\")
			if continuing {
				s := strings.TrimSuffix(cmd.String(), "\\")
				cmd.Reset()
				cmd.WriteString(s)
				continue
			}
			cur = &readmeSample{args: strings.Fields(cmd.String())}
			continue
		}
		if cur != nil {
			cur.output += line + "\n"
		}
	}
	return out
}

// docCommand is one invocation of the CLI in a page: its file and line, and its arguments.
type docCommand struct {
	where string
	args  []string
}

// docCommands finds every invocation of the CLI in the ```sh and ```console blocks of a
// page: in sh blocks every line is a command, in console blocks the lines after "$ ".
// A line is split at ;, &&, || and | (as in "for …; do audit run …; done"), a trailing
// "# comment" is dropped, and backslash continuations are joined.
func docCommands(name, md string) []docCommand {
	var out []docCommand
	block := ""
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "```") {
			if block == "" {
				block = strings.TrimPrefix(line, "```")
				if block == "" {
					block = "text"
				}
			} else {
				block = ""
			}
			continue
		}
		if block != "sh" && block != "console" {
			continue
		}
		at := i + 1
		if block == "console" {
			var ok bool
			if line, ok = strings.CutPrefix(line, "$ "); !ok {
				continue
			}
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
		}
		if j := strings.Index(line, " #"); j >= 0 {
			line = line[:j]
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, part := range regexp.MustCompile(`;|&&|\|\||\|`).Split(line, -1) {
			part = strings.TrimSpace(part)
			for _, kw := range []string{"do ", "then ", "else ", "time "} {
				part = strings.TrimPrefix(part, kw)
			}
			if rest, ok := trimAudit(part); ok {
				out = append(out, docCommand{where: name + ":" + strconv.Itoa(at), args: strings.Fields(rest)})
			}
		}
	}
	return out
}

// withSubcommand says which commands take a second word before their flags.
func withSubcommand(args []string) []string {
	if len(args) >= 2 && (args[0] == "bounds" || args[0] == "reproduce") && !strings.HasPrefix(args[1], "-") {
		return args[:2]
	}
	if len(args) == 0 {
		return nil
	}
	return args[:1]
}

var helpFlag = regexp.MustCompile(`(?m)^ {2,4}--?([a-zA-Z0-9][a-zA-Z0-9-]*)`)

// flagsOf runs "audit CMD… -h" and reads the flags its help lists ("  --name type" lines).
// ok is false when the command does not exist (its -h is a usage error).
func flagsOf(t *testing.T, cmd []string) (flags []string, ok bool) {
	t.Helper()
	out, errOut, code := runCLI(t, append(slices.Clone(cmd), "-h")...)
	if code != exitPass {
		return nil, false
	}
	for _, m := range helpFlag.FindAllStringSubmatch(out+errOut, -1) {
		flags = append(flags, m[1])
	}
	return flags, true
}

// Every CLI command the README and docs/ show parses: its command exists and every flag it
// uses is one that command defines. (The outputs of the fast, deterministic ones are
// compared by TestREADMESamplesAreRealOutputs.)
func TestDocsCommands(t *testing.T) {
	cache := map[string][]string{}
	parsed, pages := 0, 0
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmds := docCommands(strings.TrimPrefix(f, "../../"), string(b))
		if len(cmds) > 0 {
			pages++
		}
		for _, c := range cmds {
			key := withSubcommand(c.args)
			if key == nil {
				t.Errorf("%s: audit with no command", c.where)
				continue
			}
			k := strings.Join(key, " ")
			flags, seen := cache[k]
			if !seen {
				var ok bool
				if flags, ok = flagsOf(t, key); !ok {
					t.Errorf("%s: audit %s: no such command", c.where, k)
					continue
				}
				cache[k] = flags
			}
			for _, a := range c.args[len(key):] {
				if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
					continue
				}
				name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
				if name == "h" || name == "help" {
					continue
				}
				if !slices.Contains(flags, name) {
					t.Errorf("%s: audit %s: flag %s is not one of its flags %v", c.where, k, a, flags)
				}
			}
			parsed++
		}
	}
	t.Logf("%d commands on %d pages parsed against %d commands' flags", parsed, pages, len(cache))
	if parsed < 40 {
		t.Fatalf("only %d CLI commands found in the README and docs/: the check ran too little", parsed)
	}
}

// Every relative link of the README and docs/ names a file of the repository (pages moved
// between the root and docs/ keep working links).
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inBlock := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
				continue
			}
			if inBlock {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target, _, _ := strings.Cut(m[1], "#")
				if target == "" || strings.Contains(target, "://") {
					continue
				}
				checked++
				if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
					t.Errorf("%s:%d: link %s: %v", f, i+1, m[1], err)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d relative links checked in the README and docs/", checked)
	}
}

// The protocol's prose states the models a side a PASS needs at (ε, δ) = (1, 1e-3); those
// counts are plan's answer, which its table sample beside them shows (a count left from an
// older planner, 12,542 where plan said 7643, is what this catches).
func TestProtocolPassCountsArePlans(t *testing.T) {
	b, err := os.ReadFile("../../docs/models-trained-elsewhere.md")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "plan", "--epsilon", "1", "--delta", "1e-3", "--table", "8")
	if code != exitPass {
		t.Fatalf("plan --table: exit %d: %s", code, errOut)
	}
	m := regexp.MustCompile(`about (\d+) a side`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("plan --table printed no PASS count:\n%s", out)
	}
	prose := regexp.MustCompile(`about ([0-9][0-9,  ]*[0-9]) models a side`).FindAllStringSubmatch(string(b), -1)
	if len(prose) < 2 {
		t.Fatalf("%d counts of models a side a PASS needs found in the protocol's prose, want its 2", len(prose))
	}
	for _, p := range prose {
		if n := strings.NewReplacer(",", "", " ", "", " ", "").Replace(p[1]); n != m[1] {
			t.Errorf("docs/models-trained-elsewhere.md: %q; plan says about %s a side", p[0], m[1])
		}
	}
}
