// Package progress draws a one-line progress bar with an ETA on a terminal:
//
//	bar := progress.New(os.Stderr, progress.IsTerminal(os.Stderr))
//	bar.Update("d2d/perfect", 45, 200) // d2d/perfect  [#########...........]   45/200  ETA 0:32
//	bar.Done()
//
// A phase whose steps are counted by library code — a subject's checks, the power search's
// settling replicates — hands that code a context to report through (package
// internal/steps), and the bar shows whatever the code reports: elapsed time while the
// stage has no count, a bar and an ETA once it has one:
//
//	ctx, stop := bar.Steps(ctx, "checking d2d/perfect")
//	findings, err := audited.Check(ctx, results) // checking d2d/perfect  [########............]  2/5  ETA 0:04
//	stop()
//
// A phase without steps shows its label and how long it has run, with no ETA to
// extrapolate from:
//
//	stop := bar.Phase("verify: the game on the models and its power") // … its power  0:04
//	defer stop()
//
// A disabled bar (stderr not a terminal, or --quiet) writes nothing, so logs and pipes get
// no control characters, and attaches no listener, so library reports cost nothing. An ETA
// extrapolates the rate of the steps run in this process since the count began (the
// trials resumed from a checkpoint are not counted), so it is only as good as the steps
// are even: a subject's checks differ in cost, and the empirical ones, near the end,
// take the longest.
package progress

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/internal/steps"
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
	fmt.Fprintf(b.w, "\r%s", counted(label, done, total, b.first, b.now().Sub(b.start)))
	b.drawn = true
}

// counted is a line with a count: label, bar, done/total, and the ETA extrapolated from
// the done − first steps run in elapsed (or the time taken, when all are done).
func counted(label string, done, total, first int, elapsed time.Duration) string {
	fill := min(done, total) * width / total
	eta := "ETA --:--"
	if ran := done - first; ran > 0 && done < total {
		eta = "ETA " + clock(time.Duration(float64(elapsed)/float64(ran)*float64(total-done)))
	} else if done >= total {
		eta = "done " + clock(elapsed)
	}
	return fmt.Sprintf("%s  [%s%s]  %*d/%d  %s", label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), len(fmt.Sprint(total)), done, total, eta)
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

// stepTick is the least time between two redraws on reported steps (a simulation reports
// thousands a second; the terminal needs a few).
var stepTick = 100 * time.Millisecond

// Phase shows a phase whose length is not known in steps as its label and the time it
// has run, redrawn every half second until the returned stop is called (which ends the
// line). Without a count there is no honest ETA, so none is shown. The bar must not be
// used by anyone else until stop returns.
func (b *Bar) Phase(label string) (stop func()) {
	_, stop = b.Steps(context.Background(), label)
	return stop
}

// Steps shows a phase whose library code reports its steps through the context returned
// (package internal/steps): its label and elapsed time while the stage reported has no
// count, a bar and an ETA once it has one. The ETA extrapolates the rate of the steps
// since the stage began, so it is as good as the steps are even. A disabled bar returns
// ctx unchanged: the reports find no listener and cost nothing. Reports may come from
// several goroutines; the bar must not be used by anyone else until stop returns.
func (b *Bar) Steps(ctx context.Context, label string) (context.Context, func()) {
	if b == nil || !b.enabled {
		return ctx, func() {}
	}
	b.Done()
	p := &phase{b: b, label: label, start: b.now()}
	p.begin = p.start
	p.mu.Lock()
	p.draw()
	p.mu.Unlock()
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
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	}()
	return steps.With(ctx, p.report), func() {
		close(quit)
		<-finished
		p.mu.Lock()
		defer p.mu.Unlock()
		p.draw()
		fmt.Fprintln(b.w)
		p.stopped = true
	}
}

// phase is the state of a line drawn by Steps, shared by its ticker and its reporters.
type phase struct {
	mu           sync.Mutex
	b            *Bar
	label, stage string
	done, total  int
	start        time.Time // of the phase: the elapsed time shown without a count
	begin        time.Time // of the stage's count: the ETA's rate
	first        int       // steps done when the count began
	drawnAt      time.Time
	drawnDone    int  // p.done when last drawn
	width        int  // runes drawn last, to blank what a shorter line leaves
	stopped      bool // a report after stop draws nothing
}

func (p *phase) report(stage string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	now := p.b.now()
	changed := stage != p.stage || (total > 0) != (p.total > 0)
	if changed {
		p.begin, p.first = now, done
	} else if total == p.total && done < p.done {
		return // workers' reports may arrive out of order: the line never goes back
	}
	p.stage, p.done, p.total = stage, done, total
	// drawn at once: a new stage, the end, and the first step run (the first ETA)
	if changed || done >= total || p.drawnDone == p.first || now.Sub(p.drawnAt) >= stepTick {
		p.draw()
	}
}

// draw redraws the line; p.mu is held.
func (p *phase) draw() {
	now := p.b.now()
	label := p.label
	if p.stage != "" {
		label += ": " + p.stage
	}
	var line string
	if p.total > 0 {
		line = counted(label, p.done, p.total, p.first, now.Sub(p.begin))
	} else {
		line = label + "  " + clock(now.Sub(p.start))
	}
	n := utf8.RuneCountInString(line)
	fmt.Fprintf(p.b.w, "\r%s%s", line, strings.Repeat(" ", max(0, p.width-n)))
	p.width, p.drawnAt, p.drawnDone = n, now, p.done
}
