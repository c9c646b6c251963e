package clip_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// a command's last line of defence: a message is printed with every terminal control escaped
// but its newlines and tabs, and cut to fit 64 KiB with the count of bytes left out.
func TestLineEscapesAndCaps(t *testing.T) {
	if got, want := clip.Line("audit: ", "a\x1b[31mb\nc\td\u202e\x9b\u0085é"), "a\\x1b[31mb\nc\td\\u202e\\x9b\\u0085é"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	for _, msg := range []string{strings.Repeat("A", 8<<20), strings.Repeat("\x1b", 1<<20), strings.Repeat("é", 1<<20)} {
		got := clip.Line("audit: ", msg)
		if n := len("audit: " + got + "\n"); n > clip.MaxLine {
			t.Errorf("%d bytes of %.1q: the line is %d bytes, more than %d", len(msg), msg, n, clip.MaxLine)
		}
		head, count, ok := strings.Cut(got, "… (")
		var left int
		if _, err := fmt.Sscanf(count, "%d bytes of the message left out)", &left); !ok || err != nil {
			t.Fatalf("%d bytes of %.1q: no count of what was left out: ...%q", len(msg), msg, got[max(0, len(got)-80):])
		}
		// what is shown is the message's first len(msg) - left bytes, escaped
		if shown := msg[:len(msg)-left]; clip.Line("audit: ", shown) != head {
			t.Errorf("%d bytes of %.1q: %d said left out, but the head shown is not the rest", len(msg), msg, left)
		}
	}
}
