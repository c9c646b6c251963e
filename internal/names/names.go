// Package names reads comma-separated lists of names from a fixed set — the attacks, the
// preprocessing steps, the report formats — with the same errors everywhere: the name at
// fault, what was wanted, and a name given twice.
package names

import (
	"fmt"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// Parse splits s at commas, trims each name and checks it against known. noun names one
// item in errors ("attack"); want says what is accepted ("a comma-separated list of game,
// membership").
func Parse(s string, known []string, noun, want string) ([]string, error) {
	out := []string{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case !slices.Contains(known, f):
			return nil, fmt.Errorf("%s %s: want %s", noun, clip.Quote(f), want)
		case slices.Contains(out, f):
			return nil, fmt.Errorf("%s %s named twice", noun, clip.Quote(f))
		}
		out = append(out, f)
	}
	return out, nil
}
