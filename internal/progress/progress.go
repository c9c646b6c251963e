// Package progress draws a one-line progress bar with an ETA on a terminal:
//
//	bar := progress.New(os.Stderr, progress.IsTerminal(os.Stderr))
//	bar.Update("d2d/perfect", 45, 200) // d2d/perfect  [#########...........]   45/200  ETA 0:32
//	bar.Done()
//
// A phase without steps (the checks after the trials, a search) shows its label and how
// long it has run, with no ETA to extrapolate from:
//
//	stop := bar.Phase("checking d2d/perfect") // checking d2d/perfect  0:04
//	defer stop()
//
// A disabled bar (stderr not a terminal, or --quiet) writes nothing, so logs and pipes get
// no control characters. The ETA extrapolates the rate of the trials run in this process,
// not counting those resumed from a checkpoint.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Bar is a progress line. It is not safe for concurrent use: call it from one goroutine
// (the audit engine calls its Progress hook from the one that collects results).
type Bar struct {
	w       io.Writer
	enabled bool
	now     func() time.Time
	label   string
	start   time.Time
	first   int // trials already done when the label's count began (resumed)
	drawn   bool
}

// New returns a bar writing to w, or a silent one when enabled is false.
func New(w io.Writer, enabled bool) *Bar { return &Bar{w: w, enabled: enabled, now: time.Now} }

// IsTerminal reports whether f is a character device (a terminal, not a file or a pipe).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const width = 20

// Update redraws the line: label, bar, done/total and the ETA.
func (b *Bar) Update(label string, done, total int) {
	if !b.enabled || total <= 0 {
		return
	}
	if label != b.label {
		if b.drawn {
			fmt.Fprintln(b.w)
		}
		b.label, b.start, b.first = label, b.now(), done
	}
	fill := done * width / total
	eta := "ETA --:--"
	if ran := done - b.first; ran > 0 && done < total {
		left := time.Duration(float64(b.now().Sub(b.start)) / float64(ran) * float64(total-done))
		eta = "ETA " + clock(left)
	} else if done >= total {
		eta = "done " + clock(b.now().Sub(b.start))
	}
	fmt.Fprintf(b.w, "\r%s  [%s%s]  %*d/%d  %s", label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), len(fmt.Sprint(total)), done, total, eta)
	b.drawn = true
}

// Done ends the line, if one was drawn.
func (b *Bar) Done() {
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
	b.label = ""
}

// clock formats a duration as h:mm:ss or m:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// phaseTick is how often a phase's line is redrawn.
var phaseTick = 500 * time.Millisecond

// Phase shows a phase whose length is not known in steps — the checks after the trials,
// a search — as its label and the time it has run, redrawn every half second until the
// returned stop is called (which ends the line). Without a count there is no honest ETA,
// so none is shown. The bar must not be used by anyone else until stop returns.
func (b *Bar) Phase(label string) (stop func()) {
	if b == nil || !b.enabled {
		return func() {}
	}
	b.Done()
	start := b.now()
	draw := func() { fmt.Fprintf(b.w, "\r%s  %s", label, clock(b.now().Sub(start))) }
	draw()
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(phaseTick)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				draw()
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
		draw()
		fmt.Fprintln(b.w)
	}
}
