package pipeline

import (
	"fmt"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// Certifiers are the names of the registered methods that compute a certificate from
// declared constants (audit.BoundsOf: audit bounds METHOD), in registration order.
func Certifiers() []string {
	var names []string
	for _, m := range audit.Methods() {
		if _, ok := audit.BoundsOf(m); ok {
			names = append(names, m.Name())
		}
	}
	return names
}

// CertifierNamed is the registered method name and its certificate; a name that is no
// method, or a method without one, is refused with the names that have one.
func CertifierNamed(name string) (audit.Method, audit.Bounds, error) {
	m, ok := audit.MethodNamed(name)
	b, certifies := audit.BoundsOf(m)
	if !ok || !certifies {
		names := Certifiers()
		want := strings.Join(names, " or ")
		if n := len(names); n > 1 {
			want = strings.Join(names[:n-1], ", ") + " or " + names[n-1]
		}
		return nil, audit.Bounds{}, fmt.Errorf("unknown method %s; want %s", clip.Quote(name), want)
	}
	return m, b, nil
}
