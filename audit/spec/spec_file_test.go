package spec_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"

	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// --spec /dev/zero read without bound (os.ReadFile before the 1 MB check), and a FIFO
// hung: both are refused at once, by name; a file past 1 MB is refused having read 1 MB.
func TestLoadSpecIsBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.FIFO(t, filepath.Join(dir, "spec.json"))
	for _, p := range []string{"/dev/zero", fifo} {
		var err error
		testenv.WithinDeadline(t, 5*time.Second, "LoadSpec("+p+")", func() { _, err = spec.LoadSpec(p) })
		if !errors.Is(err, regular.ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("LoadSpec(%s): %v; want it refused as not a regular file", p, err)
		}
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(`{"x": "`+strings.Repeat("a", 50<<20)+`"}`), 0o644)
	var err error
	got := testenv.Allocated(func() { _, err = spec.LoadSpec(big) })
	if err == nil || !strings.Contains(err.Error(), big+": larger than 1048576 bytes") {
		t.Errorf("50 MB spec: %v", err)
	}
	if got > 8<<20 {
		t.Errorf("refusing a 50 MB spec allocated %d bytes", got)
	}
}

// FuzzLoadSpec reads specs from a file, as the CLI does: every refusal names the file, an
// accepted spec is valid, and the allocation stays within 64 bytes an input byte (JSON
// decoding) plus 1 MiB.
func FuzzLoadSpec(f *testing.F) {
	f.Add(`{"method": {"name": "d2d", "params": {"iterations": 5}}, "deletes": [1]}`)
	f.Add(`{"data": {"file": "x", "format": "idx"}, "method": {"name": "sglu"}, "outputs": {"dir": "o"}}`)
	f.Add(`{"deletes": [` + strings.Repeat("1,", 1000) + `1]}`)
	f.Fuzz(func(t *testing.T, in string) {
		p := filepath.Join(t.TempDir(), "spec.json")
		if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		var (
			s   *spec.Spec
			err error
		)
		got := testenv.Allocated(func() { s, err = spec.LoadSpec(p) })
		if limit := uint64(64*len(in) + 1<<20); got > limit {
			t.Fatalf("%d bytes allocated %d (limit %d)", len(in), got, limit)
		}
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		if s.Trials < checks.MinEmpiricalTrials || !(s.Delta > 0 && s.Delta < 1) || len(s.Outputs.Formats) == 0 { // a method is optional: verify needs only a claim
			t.Fatalf("accepted an invalid spec: %+v", s)
		}
	})
}
