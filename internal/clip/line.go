package clip

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLine caps the error line a command writes (its prefix, the message, a newline): 64 KiB.
const MaxLine = 64 << 10

// Line is msg as a command prints it after prefix, on a line of its own: the last line of
// defence behind the readers' own clipping (Quote, Text): every character a terminal acts
// on is escaped as strconv.Quote escapes it (C0 and C1 controls, DEL, format characters
// such as U+202E, bytes that are not UTF-8), but newlines and tabs, with which the tool's
// own messages lay out a list; and a message that would make the line longer than MaxLine
// is cut, ending with how many bytes of it were left out. A reader that echoes an 8 MB
// name or an escape sequence unclipped then costs the terminal at most 64 KiB of inert
// text.
func Line(prefix, msg string) string {
	room := MaxLine - len(prefix) - len("\n") - len("… (18446744073709551615 bytes of the message left out)")
	var b strings.Builder
	for i := 0; i < len(msg); {
		r, n := utf8.DecodeRuneInString(msg[i:])
		piece := msg[i : i+n]
		switch {
		case r == '\n' || r == '\t':
		case r == utf8.RuneError && n == 1:
			piece = fmt.Sprintf(`\x%02x`, msg[i])
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			piece = q[1 : len(q)-1]
		}
		if b.Len()+len(piece) > room {
			fmt.Fprintf(&b, "… (%d bytes of the message left out)", len(msg)-i)
			break
		}
		b.WriteString(piece)
		i += n
	}
	return b.String()
}
