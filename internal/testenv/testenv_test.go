package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fatals records Fatalf instead of ending the test.
type fatals struct {
	testing.TB
	msg string
}

func (f *fatals) Fatalf(format string, args ...any) { f.msg = fmt.Sprintf(format, args...) }

// FIFO makes a named pipe (and its folders); WithinDeadline fails, naming what blocked,
// when f outlives the deadline (opening the FIFO to read), and not when f returns.
func TestFIFOWithinDeadline(t *testing.T) {
	p := FIFO(t, filepath.Join(t.TempDir(), "a", "b", "pipe"))
	if st, err := os.Stat(p); err != nil || st.Mode().Type() != os.ModeNamedPipe {
		t.Fatalf("FIFO made %v (%v)", st, err)
	}
	rec := &fatals{TB: t}
	WithinDeadline(rec, 50*time.Millisecond, "opening the FIFO", func() { os.Open(p) })
	if !strings.Contains(rec.msg, "opening the FIFO did not return within 50ms") {
		t.Errorf("blocked f: %q", rec.msg)
	}
	rec = &fatals{TB: t}
	ran := false
	WithinDeadline(rec, time.Second, "nothing", func() { ran = true })
	if rec.msg != "" || !ran {
		t.Errorf("f that returns: ran %v, %q", ran, rec.msg)
	}
	// the goroutine left blocked on the FIFO is released: a writer opens it
	if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
		w.Close()
	}
}
