package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
)

// The deployment files stay true to the CLI: every audit command they run parses (its
// flags exist), the Indexed Job's JOB_COMPLETIONS is its completions, and the shell
// scripts are valid bash.
func TestDeployFiles(t *testing.T) {
	root := filepath.Join("..", "..", "deploy")
	var commands [][]string
	for _, f := range []string{"kubernetes/audit-trials.yaml", "kubernetes/audit-merge.yaml"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`command: (\[.*\])`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: no command", f)
		}
		var argv []string
		if err := json.Unmarshal(m[1], &argv); err != nil || argv[0] != "audit" {
			t.Fatalf("%s: command %s: %v", f, m[1], err)
		}
		commands = append(commands, argv[1:])
		if strings.Contains(f, "trials") {
			completions := regexp.MustCompile(`(?m)^  completions: (\d+)`).FindSubmatch(b)
			env := regexp.MustCompile(`name: JOB_COMPLETIONS\s+value: "(\d+)"`).FindSubmatch(b)
			if completions == nil || env == nil || string(completions[1]) != string(env[1]) {
				t.Errorf("%s: completions %q, JOB_COMPLETIONS %q; want them equal", f, completions, env)
			}
			if !strings.Contains(string(b), "completionMode: Indexed") {
				t.Errorf("%s: not an Indexed Job", f)
			}
		}
	}
	for _, f := range []string{"slurm/audit-array.sbatch", "slurm/audit-merge.sbatch"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`exec "\$\{AUDIT:-audit\}" (.*)`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: no audit command", f)
		}
		// the shell's variables as a user would set them
		line := regexp.MustCompile(`"\$\{?([A-Z_]+)(:-[^}]*)?\}?"`).ReplaceAllStringFunc(string(m[1]), func(v string) string {
			switch {
			case strings.Contains(v, "CPUS"):
				return "2"
			case strings.Contains(v, "SPEC"):
				return "/nonexistent/audit.json"
			}
			return "/nonexistent/dir"
		})
		// the extra flags a user may pass to each part (unquoted: they split into words)
		line = strings.ReplaceAll(line, "${AUDIT_RUN_FLAGS:-}", "--controls=false")
		line = strings.ReplaceAll(line, "${AUDIT_MERGE_FLAGS:-}", "--sign-key=/nonexistent/sign.key")
		commands = append(commands, strings.Fields(line))
	}
	for _, argv := range commands {
		for i, a := range argv {
			if strings.HasSuffix(a, ".json") {
				argv[i] = "/nonexistent/audit.json"
			}
		}
		_, stderr, code := runCLI(t, argv...)
		if code != exitUsage || strings.Contains(stderr, "flag provided but not defined") || strings.Contains(stderr, "unexpected argument") {
			t.Errorf("%q: exit %d, %q; want it to parse and stop at the missing input", argv, code, stderr)
		}
	}
	// every task and the merge get the evidence key: the Kubernetes pods from the Secret,
	// the Slurm jobs from submit.sh's environment
	for _, f := range []string{"kubernetes/audit-trials.yaml", "kubernetes/audit-merge.yaml"} {
		b, _ := os.ReadFile(filepath.Join(root, f))
		if !regexp.MustCompile(`name: `+evidence.KeyEnv+`\s+value: /evidence/key`).Match(b) || !strings.Contains(string(b), "secretName: unlearnaudit-evidence-key") ||
			!strings.Contains(string(b), "defaultMode: 0400") {
			t.Errorf("%s: the evidence key is not passed from the Secret", f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "slurm", "submit.sh")); !strings.Contains(string(b), "export "+evidence.KeyEnv+"\n") {
		t.Errorf("submit.sh does not export %s to the jobs", evidence.KeyEnv)
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "slurm", "*"))
	if len(scripts) < 4 {
		t.Fatalf("deploy/slurm holds %d files", len(scripts))
	}
	for _, s := range scripts {
		if out, err := exec.Command("bash", "-n", s).CombinedOutput(); err != nil {
			t.Errorf("%s: %v: %s", s, err, out)
		}
	}
}
