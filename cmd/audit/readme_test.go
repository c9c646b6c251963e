package main

import (
	"os"
	"strings"
	"testing"
)

// The README's sample outputs are the commands' real outputs: every console block whose
// command is a deterministic, fast one (bounds) is run and compared line for line.
func TestREADMESamplesAreRealOutputs(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	samples := readmeSamples(string(b))
	checked := 0
	for _, s := range samples {
		if len(s.args) < 1 || s.args[0] != "bounds" {
			continue
		}
		checked++
		out, errOut, code := runCLI(t, s.args...)
		if code != exitPass {
			t.Errorf("README: %v: exit %d: %s", s.args, code, errOut)
			continue
		}
		if out != s.output {
			t.Errorf("README sample of %v differs from the command's output.\nREADME:\n%s\ncommand:\n%s", s.args, s.output, out)
		}
	}
	if checked == 0 {
		t.Fatal("no README sample of a bounds command found: the check ran nothing")
	}
}

type readmeSample struct {
	args   []string
	output string
}

// readmeSamples reads ```console blocks: a "$ go run ./cmd/audit …" line (continued by a
// trailing backslash) and the output lines up to the next command or the block's end.
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
		if continuing || strings.HasPrefix(line, "$ go run ./cmd/audit ") {
			if !continuing {
				flush()
				cmd.Reset()
				cmd.WriteString(strings.TrimPrefix(line, "$ go run ./cmd/audit "))
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
