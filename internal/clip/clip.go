package clip

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Max is how many characters of a value a message quotes.
const Max = 64

// Bound is the most bytes Quote or Text returns for any input: Max characters each escaped
// to at most 10 bytes (\U0010ffff), two quotes, and "… (N bytes)" with N of at most 20
// digits. A message that quotes k values is at most k × Bound bytes longer than its own text.
const Bound = 2 + 10*Max + len("… ( bytes)") + 20

// cut is s's first Max characters and whether that is all of it.
func cut(s string) (string, bool) {
	n := 0
	for i := range s {
		if n == Max {
			return s[:i], false
		}
		n++
	}
	return s, true
}

// Quote is s quoted as Go quotes it (strconv.Quote): whole when it is short, else its
// first Max characters followed by "… (N bytes)". strconv.Quote escapes every character
// strconv.IsPrint rejects and every byte that is not UTF-8, so a quoted value holds no C0
// control (ESC, BEL, CR, LF…), no DEL, no C1 control (U+0080–U+009F), no line or paragraph
// separator and no format character (Unicode Cf: the bidirectional overrides U+202A–U+202E
// and isolates U+2066–U+2069 that reorder a terminal line, zero-width joiners, BOM).
func Quote(s string) string {
	head, whole := cut(s)
	if whole {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(head), len(s))
}

// Text is Quote unquoted, for values that read best bare (numbers): s when it is short,
// else its first Max characters followed by "… (N bytes)". A value whose shown part holds
// a character Quote would escape is shown as Quote shows it, quotes included, so that it
// cannot drive the terminal and its escapes are not mistaken for the value's own backslashes.
func Text(s string) string {
	head, whole := cut(s)
	if !plain(head) {
		return Quote(s)
	}
	if whole {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", head, len(s))
}

// plain reports whether strconv.Quote would leave every character of s as it is (but
// for '"' and '\\', which are harmless bare).
func plain(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return false // RuneError: a byte that is not UTF-8, or U+FFFD itself (shown escaped: harmless)
		}
	}
	return true
}
