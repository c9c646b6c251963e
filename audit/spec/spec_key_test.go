package spec_test

import (
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/spec"
)

// An unknown key of 10 000 characters was echoed whole. A key that is not short and
// plain is named clipped and quoted, in unknown, repeated and malformed fields alike; a
// plain one as it is.
func TestSpecKeysClipped(t *testing.T) {
	long := strings.Repeat("k", 10000)
	for _, c := range []struct {
		name, spec, want string
	}{
		{"unknown, long", `{"` + long + `": 1}`, `"` + strings.Repeat("k", 64) + `"… (10000 bytes)`},
		{"unknown, nested", `{"method": {"name": "d2d", "` + long + `": 1}}`, `method."` + strings.Repeat("k", 64) + `"… (10000 bytes)`},
		{"a new line in a key", `{"a\nb": 1}`, `"a\nb"`},
		{"plain", `{"trails": 8}`, `trails: unknown field`},
	} {
		_, err := spec.ParseSpec(strings.NewReader(c.spec), "s.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want it to name %s", c.name, err, c.want)
			continue
		}
		if len(err.Error()) > 2000 || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %d bytes of message, %q", c.name, len(err.Error()), err.Error()[:min(200, len(err.Error()))])
		}
	}
}
