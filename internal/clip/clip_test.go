package clip_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("é", 10000)
	for _, c := range []struct{ in, quote, text string }{
		{"abc", `"abc"`, "abc"},
		{"1e999", `"1e999"`, "1e999"},
		{`a"b\c`, `"a\"b\\c"`, `a"b\c`}, // bare: a quote or a backslash drives nothing
		{"a\nb", `"a\nb"`, `"a\nb"`},    // a value that needs an escape is shown quoted
		{"\x1b[31mred", `"\x1b[31mred"`, `"\x1b[31mred"`},
		{"\x1b]0;t\x07", `"\x1b]0;t\a"`, `"\x1b]0;t\a"`},
		{"x\u202etxt.exe", `"x\u202etxt.exe"`, `"x\u202etxt.exe"`},
		{"\u009b31m\x7f", `"\u009b31m\x7f"`, `"\u009b31m\x7f"`},
		{"\x9b31m", `"\x9b31m"`, `"\x9b31m"`}, // a lone C1 byte, not UTF-8
		{strings.Repeat("x", 64), `"` + strings.Repeat("x", 64) + `"`, strings.Repeat("x", 64)},
		{strings.Repeat("x", 65), `"` + strings.Repeat("x", 64) + `"… (65 bytes)`, strings.Repeat("x", 64) + "… (65 bytes)"},
		{strings.Repeat("x", 64) + "\x1b", `"` + strings.Repeat("x", 64) + `"… (65 bytes)`, strings.Repeat("x", 64) + "… (65 bytes)"}, // the escape is not shown
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

// hostile draws strings made of what a terminal acts on (CSI and OSC sequences, C1 controls
// as runes and as lone bytes, bidirectional overrides, line separators) among plain text and
// arbitrary bytes, long enough to be clipped about half the time.
func hostile() *rapid.Generator[string] {
	piece := rapid.OneOf(
		rapid.SampledFrom([]string{"\x1b[31m", "\x1b]0;t\x07", "\r", "\n", "\t", "\x00", "\x7f", "\u0085", "\u009b", "\x9b", "\xc2",
			"\u202e", "\u2066", "\u200f", "\u061c", "\u2028", "\ufeff", "\u200d", "\U000e0001", "é", "\\", `"`, "a", " ", "\ufffd", "💥"}),
		rapid.StringN(1, 4, -1),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 1, 4), func(b []byte) string { return string(b) }),
	)
	return rapid.Map(rapid.SliceOfN(piece, 0, 60), func(ps []string) string { return strings.Join(ps, "") })
}

// The sanitiser's promise, for any input: what Quote and Text return is valid UTF-8 with no
// byte below 0x20, no DEL, no C1 control, no format character (Cf: the bidi overrides and
// isolates among them) and no line or paragraph separator; it is at most Bound bytes; and a
// value longer than Max characters is clipped and names its length in bytes, while a shorter
// one is shown whole (Quote's output unquotes to it; Text's is it, or Quote's).
func TestSanitisedForAnyInput(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := hostile().Draw(t, "in")
		for name, f := range map[string]func(string) string{"Quote": clip.Quote, "Text": clip.Text} {
			out := f(in)
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: not UTF-8", name, in, out)
			}
			for _, r := range out {
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
					t.Fatalf("%s(%q) = %q holds %U", name, in, out, r)
				}
			}
			if len(out) > clip.Bound {
				t.Fatalf("%s: %d bytes > Bound %d", name, len(out), clip.Bound)
			}
			if utf8.RuneCountInString(in) > clip.Max {
				if suffix := fmt.Sprintf("… (%d bytes)", len(in)); !strings.HasSuffix(out, suffix) {
					t.Fatalf("%s(%q) = %q: clipped without %q", name, in, out, suffix)
				}
				continue
			}
			switch name {
			case "Quote":
				if u, err := strconv.Unquote(out); err != nil || u != in {
					t.Fatalf("Quote(%q) = %s does not unquote to it", in, out)
				}
			case "Text":
				if out != in && out != strconv.Quote(in) {
					t.Fatalf("Text(%q) = %s", in, out)
				}
			}
		}
	})
}
