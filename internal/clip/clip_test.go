package clip_test

import (
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("é", 10000)
	for _, c := range []struct{ in, quote, text string }{
		{"abc", `"abc"`, "abc"},
		{"a\nb", `"a\nb"`, "a\nb"},
		{strings.Repeat("x", 64), `"` + strings.Repeat("x", 64) + `"`, strings.Repeat("x", 64)},
		{strings.Repeat("x", 65), `"` + strings.Repeat("x", 64) + `"… (65 bytes)`, strings.Repeat("x", 64) + "… (65 bytes)"},
		{long, `"` + strings.Repeat("é", 64) + `"… (20000 bytes)`, strings.Repeat("é", 64) + "… (20000 bytes)"},
	} {
		if got := clip.Quote(c.in); got != c.quote {
			t.Errorf("Quote(%.20q…) = %s, want %s", c.in, got, c.quote)
		}
		if got := clip.Text(c.in); got != c.text {
			t.Errorf("Text(%.20q…) = %s, want %s", c.in, got, c.text)
		}
	}
}
