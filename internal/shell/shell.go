package shell

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote makes w one word of a POSIX shell command line, as it is. A word holding what a
// terminal would act on (ESC, BEL, C1 controls, bidi and other format characters, bytes
// that are not UTF-8) is written in ANSI-C quoting, $'…' with those as \x and \u
// escapes (bash, zsh, ksh and POSIX.1-2024 read it): printed raw, the line would recolour
// or retitle the terminal that shows it.
func Quote(w string) string {
	if w != "" && !strings.ContainsFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:+@%", r))
	}) {
		return w
	}
	if strings.ContainsFunc(w, terminalActs) || !utf8.ValidString(w) {
		return ansiC(w)
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// terminalActs is whether a terminal acts on r rather than showing it.
func terminalActs(r rune) bool {
	return r == 0x1b || r == 0x07 || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
}

// ansiC is w in $'…' quoting, every byte or rune that is not printable ASCII escaped.
func ansiC(w string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(w); {
		r, n := utf8.DecodeRuneInString(w[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, w[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case terminalActs(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(w[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// Join quotes each word (Quote) and joins them with spaces. The first word, the
// command's name, is quoted too when it holds "=", which a shell would read as a variable
// assignment there.
func Join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
		if i == 0 && out[i] == w && strings.Contains(w, "=") {
			out[i] = "'" + w + "'"
		}
	}
	return strings.Join(out, " ")
}

// Arg is a path as an argument no program reads as an option: a relative path that
// begins with "-" gets "./" in front. Quote it still.
func Arg(path string) string {
	if strings.HasPrefix(path, "-") {
		return "./" + path
	}
	return path
}
