package pipeline

import (
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// certifier is a method with a certificate and nothing else.
type certifier struct{ name string }

func (c certifier) Name() string         { return c.name }
func (certifier) Summary() string        { return "computes a certificate" }
func (c certifier) Bounds() audit.Bounds { return audit.Bounds{About: c.name + "'s bounds"} }

// Only the methods with a certificate are listed and found; any other name, a method's
// without one included, is refused with the list, the last joined by "or".
func TestCertifiers(t *testing.T) {
	for _, m := range []audit.Method{certifier{"cert-a"}, reproducer{}, certifier{"cert-b"}} {
		audit.MustRegister(m)
		t.Cleanup(func() { audit.Deregister(m.Name()) })
	}
	names := Certifiers()
	if !slices.Contains(names, "cert-a") || !slices.Contains(names, "cert-b") || slices.Contains(names, "repro") {
		t.Errorf("Certifiers = %v, want cert-a and cert-b and not repro", names)
	}
	if m, b, err := CertifierNamed("cert-b"); err != nil || m.Name() != "cert-b" || b.About != "cert-b's bounds" {
		t.Errorf("CertifierNamed(cert-b) = %v, %+v, %v", m, b, err)
	}
	want := `; want ` + joinOr(names)
	for _, name := range []string{"repro", "nope"} {
		if _, _, err := CertifierNamed(name); err == nil || err.Error() != `unknown method "`+name+`"`+want {
			t.Errorf("CertifierNamed(%s): %v; want the refusal listing %v", name, err, names)
		}
	}
}

// joinOr is "a, b or c", written out in the test as a reader would.
func joinOr(names []string) string {
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " or "
		default:
			s += ", "
		}
		s += n
	}
	return s
}
