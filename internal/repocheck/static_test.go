package repocheck

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A plain `go build ./cmd/audit` gives a static binary, even on a machine whose Go has
// cgo on (a C compiler installed): the audit binary links none of the packages that bring
// in C there (net's resolver, os/user's lookups, runtime/cgo itself, plugin). It did until
// audit/evidence stopped importing crypto/x509 (which imports net): then `file` called the
// binary "dynamically linked". Planted: crypto/x509 imported again fails it.
func TestAuditBinaryIsStatic(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/audit")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/audit: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps ./cmd/audit listed %d packages: the listing failed", len(deps))
	}
	for _, p := range deps {
		switch p {
		case "net", "os/user", "runtime/cgo", "plugin":
			t.Errorf("cmd/audit links %s, which builds with C when cgo is on: the binary would be dynamically linked (go mod why -m is no help here; go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./cmd/audit shows who imports it)", p)
		}
	}
}
