package luaapi

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// DefaultProgressEvery is how often a call that waits says so on stderr
// when stderr is not a terminal (Options.ProgressEvery).
const DefaultProgressEvery = 10 * time.Second

// stderrIsTerminal decides between progress lines and a line kept up to
// date in place; tests replace it.
var stderrIsTerminal = isTerminal

// progress reports on stderr a call that is still running after a few
// seconds: what the engine says it waits for (engine.WithProgress), or only
// how long it has been waiting. Piped into a log, a line like kafka.log's
// every ProgressEvery:
//
//	2026-11-30T10:00:20Z INFO wait_reassignments: 20s: 3 partition(s) moving: orders[0] orders[1] orders[2]; 2 finished
//
// On a terminal one line, rewritten in place every second after the first
// two, and erased when the call returns.
type progress struct {
	w        io.Writer
	name     string
	start    time.Time
	every    time.Duration // between log lines
	terminal bool

	mu      sync.Mutex
	status  string
	shown   bool // terminal: the progress line is on screen
	timer   *time.Timer
	armedAt time.Time     // when the timer fires; zero: not armed
	due     time.Time     // when the call's next report is due
	tick    time.Duration // between reports after the first
	stopped bool

	// Made once per progress: a call that reuses it allocates nothing.
	rt         *Runtime
	stopFn     func()
	setFn      func(string)
	ctx, ctxOf context.Context // ctxOf with setFn (progressCtx)
}

// startProgress starts reporting c while it runs; the returned func stops
// it (and erases the line on a terminal) before the call's results are
// printed. Nothing runs until the first report is due: a call costs no
// goroutine started and joined (a runbook making 500 quick calls paid that
// on each), and not even a timer of its own: the reporter, its timer and
// its context are the last call's. The timer, still armed for the last
// call's first report (earlier than this one's), finds that call over
// when it fires and arms itself for this call's.
func (r *Runtime) startProgress(c *Call) func() {
	every := r.opts.ProgressEvery
	if every == 0 {
		every = DefaultProgressEvery
	}
	if every < 0 {
		return func() {}
	}
	terminal := r.stderrTerminal()
	first, tick := every, every // log lines: after one interval, then each interval
	if terminal {
		first, tick = min(2*time.Second, every), min(time.Second, every)
	}
	r.mu.Lock()
	p := r.idleProgress
	r.idleProgress = nil
	r.mu.Unlock()
	if p == nil {
		p = &progress{rt: r}
		p.stopFn, p.setFn = p.stop, p.set
	}
	p.mu.Lock()
	now := time.Now()
	p.w, p.name, p.start, p.every, p.terminal = r.opts.Stderr, c.Fn.Name, now, every, terminal
	p.status, p.shown, p.stopped, p.tick, p.due = "", false, false, tick, now.Add(first)
	switch {
	case p.timer == nil:
		p.timer, p.armedAt = time.AfterFunc(first, p.fire), p.due
	case p.armedAt.IsZero() || p.armedAt.After(p.due):
		p.timer.Reset(first)
		p.armedAt = p.due
	}
	p.mu.Unlock()
	c.progress = p
	return p.stopFn
}

// stderrTerminal is stderrIsTerminal of the runtime's stderr, asked once.
func (r *Runtime) stderrTerminal() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stderrTerm == nil {
		t := stderrIsTerminal(r.opts.Stderr)
		r.stderrTerm = &t
	}
	return *r.stderrTerm
}

// set records what the call waits for now (engine.WithProgress).
func (p *progress) set(status string) {
	p.mu.Lock()
	p.status = status
	p.mu.Unlock()
}

// fire reports, then waits for the next report, until stopped.
func (p *progress) fire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armedAt = time.Time{}
	if p.stopped {
		return // the call it was armed for is over; the next arms it again
	}
	if now := time.Now(); now.Before(p.due) {
		p.timer.Reset(p.due.Sub(now)) // armed for an earlier call
		p.armedAt = p.due
		return
	}
	p.report()
	p.due = time.Now().Add(p.tick)
	p.timer.Reset(p.tick)
	p.armedAt = p.due
}

// report writes the report (p.mu held).
func (p *progress) report() {
	status := p.status
	if status == "" {
		status = "waiting for the cluster"
	}
	msg := fmt.Sprintf("%s: %s: %s", p.name, time.Since(p.start).Round(time.Second), status)
	if p.terminal {
		_, _ = fmt.Fprintf(p.w, "\r\033[K%s", escapeLine(msg))
		p.shown = true
		return
	}
	_, _ = io.WriteString(p.w, logText("info", escapeLine(msg)))
}

// stop ends the reports; on a terminal the line is erased. A report
// being written finishes first (it holds p.mu); one due later sees
// stopped.
func (p *progress) stop() {
	p.mu.Lock()
	p.stopped = true
	p.clear()
	p.mu.Unlock()
	p.rt.mu.Lock()
	p.rt.idleProgress = p
	p.rt.mu.Unlock()
}

// release stops the timer of a reporter no call will reuse.
func (p *progress) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer.Stop()
	p.armedAt = time.Time{}
}

// clear erases the progress line from the terminal (p.mu held).
func (p *progress) clear() {
	if p.shown {
		_, _ = io.WriteString(p.w, "\r\033[K")
		p.shown = false
	}
}

// logText formats a line as kafka.log does: "time LEVEL msg".
func logText(level, msg string) string {
	return fmt.Sprintf("%s %s %s\n", time.Now().UTC().Format(time.RFC3339), strings.ToUpper(level), msg)
}

// escapeLine keeps a progress or log line on one line and harmless: it
// names topics and groups, which a cluster's users choose, so controls (C0,
// DEL, C1), bidi overrides and zero-width characters are written as
// escapes, as in a table cell (a bare C0 check let \u202e reorder a line).
func escapeLine(s string) string { return CellText(s) }

// logLine writes a kafka.log-style line to stderr from inside a call,
// first erasing a progress line on a terminal.
func (c *Call) logLine(level, msg string) {
	if p := c.progress; p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.clear()
	}
	_, _ = io.WriteString(c.rt.opts.Stderr, logText(level, escapeLine(msg)))
}

// progressCtx gives ctx the call's progress function, if it has one (the
// context made for the last call, when it was made from the same ctx).
func (c *Call) progressCtx(ctx context.Context) context.Context {
	p := c.progress
	if p == nil {
		return ctx
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctxOf != ctx || p.ctx == nil {
		p.ctx, p.ctxOf = engine.WithProgress(ctx, p.setFn), ctx
	}
	return p.ctx
}

// runReported runs the call with progress reports on stderr, stopped
// before it returns (or raises).
func (r *Runtime) runReported(c *Call) (any, error) {
	defer r.startProgress(c)()
	v, err := c.Fn.Run(c)
	if err != nil && c.iterStop != nil { // no iterator came of it
		c.iterStop()
	}
	return v, err
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
