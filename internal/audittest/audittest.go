// Package audittest runs registered methods the way the CLI does, for the tests of the
// method packages: a certificate from flags (Certificate) and an experiment from flags
// with its files written (Reproduce). It is separate from testenv, which the packages
// audit imports use in their own tests.
package audittest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// Reproduce runs a registered experiment as "audit reproduce NAME argv…" does and writes
// its files into out. Its error is the experiment's: bad settings or input.
func Reproduce(t testing.TB, name, out string, argv ...string) (*reports.Reproduced, error) {
	t.Helper()
	e, ok := audit.ExperimentNamed(name)
	if !ok {
		t.Fatalf("experiment %s is not registered", name)
	}
	rep, err := e.RunArgs(context.Background(), audit.ExperimentEnv{Out: out, Version: "test"}, argv)
	if err != nil {
		return nil, err
	}
	res, err := rep.Render(out)
	if err != nil {
		return nil, err
	}
	if err := res.Write(out); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

// Summary is what "audit reproduce" would have printed for res, for failure messages.
func Summary(res *reports.Reproduced) string {
	if res == nil {
		return ""
	}
	return string(res.Verdict) + ": " + res.Text
}

// Certificate computes a registered method's certificate as "audit bounds METHOD argv…"
// does, and returns it as the JSON object --json prints, decoded, and as the text table.
// Its error is the method's: bad or missing constants.
func Certificate(t testing.TB, method string, argv ...string) (obj map[string]any, text string, err error) {
	t.Helper()
	m, ok := audit.MethodNamed(method)
	b, certifies := audit.BoundsOf(m)
	if !ok || !certifies {
		t.Fatalf("method %s is not registered, or computes no certificate", method)
	}
	rows, err := b.Run(context.Background(), argv)
	if err != nil {
		return nil, "", err
	}
	var js, tab bytes.Buffer
	if err := reports.WriteCertificate(&js, rows, true); err != nil {
		t.Fatal(err)
	}
	if err := reports.WriteCertificate(&tab, rows, false); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &obj); err != nil {
		t.Fatalf("certificate JSON %s: %v", js.Bytes(), err)
	}
	return obj, tab.String(), nil
}

// ByCheck indexes findings by their check identifier, for tests that look findings up.
func ByCheck(fs []verdict.Finding) map[string]verdict.Finding {
	out := make(map[string]verdict.Finding, len(fs))
	for _, f := range fs {
		out[f.Check] = f
	}
	return out
}

// Reproduced runs a registered experiment into a temporary folder, failing the test on
// bad settings, and reads its JSON back: the outcome, the reproduction and the folder.
func Reproduced(t *testing.T, name string, argv ...string) (*reports.Reproduced, *reports.Reproduction, string) {
	t.Helper()
	dir := t.TempDir()
	res, err := Reproduce(t, name, dir, argv...)
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := reports.ReadReproduction(bytes.NewReader(js), name+".json")
	if err != nil {
		t.Fatal(err)
	}
	return res, rep, dir
}
