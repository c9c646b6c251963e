package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// forgeShards rewrites every trial line of the d2d subject in every part under shards as
// the red team did: the unlearned models moved away from the retrained ones (a
// correct unlearner made to look broken), the line's sha256 checksum recomputed from the
// fingerprint its file's header prints, and any tag in front kept as it was (the forger
// has no key). It returns the files changed.
func forgeShards(t *testing.T, shards string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(shards, "shard-*", "trials", "d2d-strongly-convex-*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no d2d checkpoint to forge")
	}
	for _, f := range files {
		lines := bytes.SplitAfter(must(os.ReadFile(f)), []byte("\n"))
		untag := func(l []byte) (prefix, body []byte) {
			l = bytes.TrimSuffix(l, []byte("\n"))
			if evidence.Tagged(l, ' ') {
				return l[:evidence.TagHexLen+1], l[evidence.TagHexLen+1:]
			}
			return nil, l
		}
		_, head := untag(lines[0])
		var hdr struct{ Fingerprint string }
		if err := json.Unmarshal(head, &hdr); err != nil || hdr.Fingerprint == "" {
			t.Fatalf("%s: header %q: %v", f, head, err)
		}
		for k := 1; k < len(lines) && len(lines[k]) > 0; k++ {
			prefix, body := untag(lines[k])
			var line struct {
				trials.TrialResult
				Sum string `json:"sum"`
			}
			if err := json.Unmarshal(body, &line); err != nil {
				t.Fatalf("%s:%d: %v", f, k+1, err)
			}
			for i := range line.Unlearned.Published {
				line.Unlearned.Published[i] += 0.5
			}
			r, _ := json.Marshal(line.TrialResult)
			sum := sha256.Sum256(append([]byte(hdr.Fingerprint+"\n"), r...))
			line.Sum = hex.EncodeToString(sum[:16])
			out, _ := json.Marshal(line)
			lines[k] = append(append(append([]byte{}, prefix...), out...), '\n')
		}
		if err := os.WriteFile(f, bytes.Join(lines, nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// The red team's forger, rerun. Shards run without a key merge whatever is in them: the
// forged trials turn a PASS into a FAIL, and the report says its trials are
// unauthenticated. Shards run under an evidence key (from the environment, as the deploy
// files pass it, or from the flag) merge into a report that says they are authenticated,
// signed with --sign-key, which check-report verifies; forged, the merge refuses them,
// exit 2, naming the file and line, and writes no report. A key missing or another key
// is refused alike, and the key itself appears in nothing the tool writes.
func TestForgerRefusedWithKey(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	keys := filepath.Join(dir, "keys")
	if _, stderr, code := runCLI(t, "keygen", "--out", keys); code != 0 {
		t.Fatal(stderr)
	}
	keyFile, signKey, pubKey := filepath.Join(keys, "evidence.key"), filepath.Join(keys, "sign.key"), filepath.Join(keys, "sign.pub")
	keyHex := strings.TrimSpace(string(must(os.ReadFile(keyFile))))
	otherKeys := filepath.Join(dir, "other-keys")
	runCLI(t, "keygen", "--out", otherKeys)

	run := func(t *testing.T, shards string, key bool) {
		for _, p := range []string{"0/2", "1/2"} {
			args := []string{"run", "--spec", spec, "--shard", p, "--out", shards, "--controls=false"}
			withEnv(t, nil)
			switch {
			case key && p == "0/2":
				withEnv(t, map[string]string{evidence.KeyEnv: keyFile})
			case key:
				args = append(args, "--evidence-key", keyFile)
			}
			if out, stderr, code := runCLI(t, args...); code != 0 {
				t.Fatalf("part %s: exit %d: %s%s", p, code, out, stderr)
			}
		}
		withEnv(t, nil)
	}
	merge := func(t *testing.T, shards, out string, extra ...string) (string, string, int) {
		return runCLI(t, append([]string{"merge", shards, "--out", out, "--quiet"}, extra...)...)
	}

	t.Run("without a key", func(t *testing.T) {
		shards := filepath.Join(t.TempDir(), "shards")
		run(t, shards, false)
		clean := filepath.Join(t.TempDir(), "clean")
		if out, stderr, code := merge(t, shards, clean); code != 0 || !strings.Contains(out, "overall: PASS") {
			t.Fatalf("the honest shards: exit %d: %s%s", code, out, stderr)
		}
		forgeShards(t, shards)
		forged := filepath.Join(t.TempDir(), "forged")
		out, stderr, code := merge(t, shards, forged)
		if code != exitFail || !strings.Contains(out, "overall: FAIL") {
			t.Fatalf("the forged shards: exit %d, want 1 (the forgery goes through): %s%s", code, out, stderr)
		}
		rep, _ := readReport(t, forged)
		if rep.TrialEvidence != reports.TrialsUnauthenticated {
			t.Errorf("trial_evidence %q, want %q", rep.TrialEvidence, reports.TrialsUnauthenticated)
		}
		if md := string(must(os.ReadFile(filepath.Join(forged, "report.md")))); !strings.Contains(md, "Trial evidence: unauthenticated.") {
			t.Errorf("report.md does not say the trials are unauthenticated")
		}
		// shards without a key are refused by a merge with one
		_, stderr, code = merge(t, shards, filepath.Join(t.TempDir(), "r"), "--evidence-key", keyFile)
		if code != exitUsage || !strings.Contains(stderr, "shard.json: written without an evidence key") {
			t.Errorf("unkeyed shards merged under a key: exit %d: %s", code, stderr)
		}
	})

	t.Run("with a key", func(t *testing.T) {
		shards := filepath.Join(t.TempDir(), "shards")
		run(t, shards, true)
		manifest := string(must(os.ReadFile(filepath.Join(shards, "shard-0-of-2", "shard.json"))))
		if !evidence.Tagged([]byte(manifest), '\n') || strings.Contains(manifest, keyFile) {
			t.Errorf("the manifest is untagged or records the key's file:\n%s", manifest)
		}
		clean := filepath.Join(t.TempDir(), "clean")
		withEnv(t, map[string]string{evidence.KeyEnv: keyFile})
		out, stderr, code := merge(t, shards, clean, "--sign-key", signKey)
		withEnv(t, nil)
		if code != 0 || !strings.Contains(out, "overall: PASS") {
			t.Fatalf("the honest shards under the key: exit %d: %s%s", code, out, stderr)
		}
		rep, js := readReport(t, clean)
		if rep.TrialEvidence != reports.TrialsAuthenticated {
			t.Errorf("trial_evidence %q, want %q", rep.TrialEvidence, reports.TrialsAuthenticated)
		}
		for _, a := range rep.CommandLine {
			if strings.Contains(a, "key") {
				t.Errorf("the report's command line names a key: %q", rep.CommandLine)
			}
		}
		// the key is in nothing written
		filepath.WalkDir(filepath.Dir(clean), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && bytes.Contains(must(os.ReadFile(p)), []byte(keyHex)) {
				t.Errorf("%s holds the evidence key", p)
			}
			return nil
		})
		if strings.Contains(out+stderr, keyHex) {
			t.Error("the key was printed")
		}

		// the signed report checks out, and fails once edited or under another key
		env := filepath.Join(clean, "report.json.dsse")
		out, stderr, code = runCLI(t, "check-report", "--key", pubKey, env, filepath.Join(clean, "report.json"))
		if code != 0 || !strings.Contains(out, "verified: ") || !strings.Contains(out, "overall PASS") {
			t.Fatalf("check-report: exit %d: %s%s", code, out, stderr)
		}
		edited := filepath.Join(t.TempDir(), "report.json")
		os.WriteFile(edited, bytes.Replace(js, []byte(`"verdict": "PASS"`), []byte(`"verdict": "FAIL"`), 1), 0o644)
		badEnv := filepath.Join(t.TempDir(), "report.json.dsse")
		os.WriteFile(badEnv, regexp.MustCompile(`"sig": "(.)`).ReplaceAllFunc(must(os.ReadFile(env)), func(b []byte) []byte {
			if b[len(b)-1] == 'A' {
				return append(b[:len(b)-1], 'B')
			}
			return append(b[:len(b)-1], 'A')
		}), 0o644)
		for _, c := range []struct {
			name string
			args []string
			code int
			want string
		}{
			{"report edited", []string{"--key", pubKey, env, edited}, exitFail, "the report is not the one signed"},
			{"signature edited", []string{"--key", pubKey, badEnv}, exitFail, "NOT VERIFIED"},
			{"another key", []string{"--key", filepath.Join(otherKeys, "sign.pub"), env}, exitFail, "0 of the envelope's 1 signatures verify"},
			{"a private key", []string{"--key", signKey, env}, exitUsage, "give the public key"},
			{"not an envelope", []string{"--key", pubKey, filepath.Join(clean, "report.json")}, exitUsage, "not a DSSE envelope"},
			{"no key", []string{env}, exitUsage, "want --key PUB.pem"},
		} {
			out, stderr, code := runCLI(t, append([]string{"check-report"}, c.args...)...)
			if code != c.code || !strings.Contains(out+stderr, c.want) {
				t.Errorf("check-report, %s: exit %d, %s%s; want exit %d with %q", c.name, code, out, stderr, c.code, c.want)
			}
		}

		// keyed shards merged without the key, or under another
		_, stderr, code = merge(t, shards, filepath.Join(t.TempDir(), "r"))
		if code != exitUsage || !strings.Contains(stderr, "written with an evidence key") {
			t.Errorf("keyed shards merged without the key: exit %d: %s", code, stderr)
		}
		_, stderr, code = merge(t, shards, filepath.Join(t.TempDir(), "r"), "--evidence-key", filepath.Join(otherKeys, "evidence.key"))
		if code != exitUsage || !strings.Contains(stderr, "its tag does not match") {
			t.Errorf("keyed shards merged under another key: exit %d: %s", code, stderr)
		}

		// the forger, rerun: refused, naming the file and line, and no report written
		files := forgeShards(t, shards)
		forged := filepath.Join(t.TempDir(), "forged")
		_, stderr, code = merge(t, shards, forged, "--evidence-key", keyFile)
		if code != exitUsage {
			t.Fatalf("the forged shards under the key: exit %d, want 2: %s", code, stderr)
		}
		named := false
		for _, f := range files {
			named = named || strings.Contains(stderr, f+":2: trial line's tag does not match its content under the evidence key")
		}
		if !named {
			t.Errorf("the refusal names no forged file and line: %s", stderr)
		}
		if _, err := os.Stat(filepath.Join(forged, "report.json")); !os.IsNotExist(err) {
			t.Errorf("a report was written from forged shards (%v)", err)
		}
	})
}

// A run resumed under a key from a folder kept without one (or the other way round) is
// refused before any trial runs, saying which, with the way out; a key file others can
// read is refused before any work.
func TestResumeKeyMismatch(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	keys := filepath.Join(dir, "keys")
	runCLI(t, "keygen", "--out", keys)
	keyFile := filepath.Join(keys, "evidence.key")
	out := filepath.Join(dir, "out")
	if _, stderr, code := runCLI(t, "run", "--spec", spec, "--out", out, "--controls=false", "--trials", "8"); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code := runCLI(t, "run", "--spec", spec, "--out", out, "--controls=false", "--trials", "10", "--evidence-key", keyFile)
	if code != exitUsage || !strings.Contains(stderr, ".jsonl:1: written without an evidence key") || !strings.Contains(stderr, "--fresh") {
		t.Errorf("unkeyed checkpoint resumed under a key: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "run", "--spec", spec, "--out", out, "--controls=false", "--trials", "10", "--evidence-key", keyFile, "--fresh"); code != 0 {
		t.Fatalf("--fresh under the key: %s", stderr)
	}
	_, stderr, code = runCLI(t, "run", "--spec", spec, "--out", out, "--controls=false", "--trials", "10")
	if code != exitUsage || !strings.Contains(stderr, ".jsonl:1: written with an evidence key") {
		t.Errorf("keyed checkpoint resumed without the key: exit %d: %s", code, stderr)
	}
	open := filepath.Join(dir, "open.key")
	os.WriteFile(open, must(os.ReadFile(keyFile)), 0o644)
	os.Chmod(open, 0o644)
	_, stderr, code = runCLI(t, "run", "--spec", spec, "--out", filepath.Join(dir, "never"), "--evidence-key", open)
	if code != exitUsage || !strings.Contains(stderr, "mode 0644 lets other users read or change it") {
		t.Errorf("a world-readable key: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); !os.IsNotExist(err) {
		t.Errorf("a run with a refused key wrote its folder (%v)", err)
	}
}

// An edited manifest is named (issue 29): its fingerprint no longer matches its own
// settings, and the merge says which file, exit 2, before reading any trial.
func TestEditedManifestNamed(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	shards := runShards(t, spec, dir)
	m := filepath.Join(shards, "shard-1-of-3", "shard.json")
	b := must(os.ReadFile(m))
	edited := bytes.Replace(b, []byte(`"--spec=`+spec+`"`), []byte(`"--spec=`+spec+`", "--trials=20"`), 1)
	if bytes.Equal(edited, b) {
		t.Fatalf("the test edits nothing in:\n%s", b)
	}
	os.WriteFile(m, edited, 0o644)
	_, stderr, code := runCLI(t, "merge", shards, "--out", filepath.Join(dir, "merged"))
	if code != exitUsage || !strings.Contains(stderr, "shard manifest "+m+": edited: its fingerprint") || !strings.Contains(stderr, "rerun part 1/3") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
