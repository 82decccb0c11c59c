package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
	"golang.org/x/term"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

func init() {
	register(&Func{Name: "watch", Area: "library",
		Params: []Param{
			{Name: "fn", Type: OneOf(FuncType{}, NonEmptyStr().Sample(`"lag()"`)).Described("function or chunk"), Doc: `what to re-run: a function, or Lua code as typed at the prompt ("lag('orders-processor')")`},
			{Name: "interval", Type: NumberBetween(watchMinInterval, watchMaxInterval), Optional: true, Doc: fmt.Sprintf("seconds between refreshes (default %g)", watchDefaultInterval)},
		},
		Options: []Field{
			{Name: "count", Type: Count(1), Doc: "stop after this many refreshes (default: until Ctrl-C)"},
			{Name: "window", Type: Count(2).Between(2, watchMaxWindow), Doc: fmt.Sprintf("refreshes the rates and ETA of lag are measured over (default %d)", watchDefaultWindow)},
		},
		Returns: "nothing",
		Summary: "Re-run a function or chunk every few seconds and redraw its result in place, until Ctrl-C (read-only).",
		Doc: `fn is a function or a chunk of Lua code, run as the prompt runs it (an expression's values are shown). Each refresh runs it, then waits for the rest of interval seconds (default 2, between 0.1 and 3600).
A lag() result (its groups, or one group) is shown per group and partition: the lag, the ETA (the time left to zero lag at the pace the lag fell), the change since the last refresh, the consume rate (committed offsets) and produce rate (end offsets) in records/s, with a bar scaled to the largest lag. The rates and the ETA are measured over the last window refreshes (default 5): "-" until there are two, "0s" for a partition that does not lag, "keeps up" for one that read in the window at least what it lags and whose lag is no more than the window's production (recent records, which each commit clears: a time to zero read off them would be noise), "never" for one whose lag did not fall (while the window is still filling, a partition whose committed offset has not moved yet shows "-": its consumer may commit less often than the window spans). A window shorter than a consumer's commit interval (Kafka Streams commits every 30 s) shows its lag rising between commits: widen it. On a narrow terminal the lag and ETA come first; long topic names are cut (…) before the figures are. Any other result is printed as the REPL prints it, with every table cell that changed since the last refresh marked with * after it (in reverse video on a terminal).
On a terminal the block is redrawn in place, cut to the terminal's width and height, and Ctrl-C ends the watch: the session goes on at the prompt. Piped (run, -e, stdout not a terminal) one block per refresh is printed after a header line with the time and the refresh number, with no terminal escapes; count ends it, or Ctrl-C or SIGTERM (exit 130 or 143).
A refresh that fails with a Kafka error (a broker down, a timeout) is shown in the block with the last good result, and the watch goes on; any other error (a syntax error in the chunk, calling what is no function, a bad argument) ends the watch at once with that error. The output is always the text view, whatever --output says. watch is read-only: a function that changes the cluster (create_topics, commit_offsets, ...) called while it runs fails with INVALID_ARGUMENT before anything is sent, and ends the watch; so does a watch inside a watch.`,
		Example: `watch("lag('orders-processor')", 0.1, {count = 2})
watch(function() return list_topics() end, 0.1, {count = 2})`,
		Native: (*Runtime).libWatch})
}

const (
	watchDefaultInterval = 2.0
	watchMinInterval     = 0.1
	watchMaxInterval     = 3600.0
	watchDefaultWindow   = 5
	watchMaxWindow       = 1000
)

// watchClock is the time a watch reads and waits on; tests give a fake.
type watchClock interface {
	Now() time.Time
	// Sleep waits d, or until ctx ends (its error).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watchScreen says whether w is a terminal and its size (0 when unknown).
type watchScreen func(w io.Writer) (terminal bool, width, height int)

func realScreen(w io.Writer) (bool, int, int) {
	if !isTerminal(w) {
		return false, 0, 0
	}
	f, _ := w.(*os.File)
	width, height, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return true, 0, 0
	}
	return true, width, height
}

func (r *Runtime) libWatch(c *Call) int {
	L := c.L
	if r.watching {
		return libError(L, "watch", argErr("", "a watch is running already: watch inside watch is refused"))
	}
	fn, label, err := r.watchTarget(param[any](c, "fn"))
	if err != nil {
		return libError(L, "watch", err)
	}
	r.watching = true
	defer func() { r.watching = false }()
	interval := param[float64](c, "interval")
	if interval == 0 {
		interval = watchDefaultInterval
	}
	window := param[int](c, "window")
	if window == 0 {
		window = watchDefaultWindow
	}
	clock, screen := r.watchClock, r.watchScreen
	if clock == nil {
		clock = realClock{}
	}
	if screen == nil {
		screen = realScreen
	}
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	w := &watcher{rt: r, label: label, every: time.Duration(interval * float64(time.Second)),
		lag: newWatchLag(window), marks: output.NewMarks(), out: r.opts.Stdout, screen: screen}
	defer w.finish()
	count := param[int](c, "count")
	for n := 1; ; n++ {
		start := clock.Now()
		vals, failure, ferr := r.watchRun(L, fn)
		if ctx.Err() != nil {
			return libError(L, "watch", engine.AsError(ctx.Err(), ""))
		}
		if ferr != nil {
			w.finish()
			L.Error(ferr, 0) // the chunk's own error, as it raised it
		}
		w.refresh(n, start, vals, failure)
		if count > 0 && n >= count {
			return 0
		}
		wait := w.every - clock.Now().Sub(start)
		if wait < 0 {
			wait = 0
		}
		if err := clock.Sleep(ctx, wait); err != nil {
			return libError(L, "watch", engine.AsError(err, ""))
		}
	}
}

// watchTarget compiles a chunk (as the REPL does: an expression first) or
// takes the function; label names it in the header.
func (r *Runtime) watchTarget(v any) (*lua.LFunction, string, error) {
	if fn, ok := v.(*lua.LFunction); ok {
		return fn, "function", nil
	}
	src := v.(string)
	fn, err := r.Compile("watch", "return "+src)
	if err != nil {
		if fn, err = r.Compile("watch", src); err != nil {
			return nil, "", argErr("fn", "%v", err)
		}
	}
	label := strings.Join(strings.Fields(src), " ")
	if len([]rune(label)) > 60 {
		label = string([]rune(label)[:59]) + "…"
	}
	return fn, label, nil
}

// watchRun calls fn once. A Kafka error (what a broker down, a timeout or
// a refused request raise) is the refresh's failure, shown in the block;
// any other error is fatal: the value to raise again.
func (r *Runtime) watchRun(L *lua.LState, fn *lua.LFunction) (vals []lua.LValue, failure string, fatal lua.LValue) {
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(fn)
	err := L.PCall(0, lua.MultRet, nil)
	if err == nil {
		for i := top + 1; i <= L.GetTop(); i++ {
			vals = append(vals, L.Get(i))
		}
		return vals, "", nil
	}
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	re := classify(L, ctx, err)
	if re.Kind == KindKafka {
		return nil, re.Message, nil
	}
	var api *lua.ApiError
	if errors.As(err, &api) && api.Object != nil && api.Object != lua.LNil {
		return nil, "", api.Object
	}
	return nil, "", lua.LString(re.Message)
}

// watcher draws a watch's blocks.
type watcher struct {
	rt     *Runtime
	label  string
	every  time.Duration
	lag    *watchLag
	marks  *output.Marks
	out    io.Writer
	screen watchScreen

	drawn    int    // terminal: lines of the block on screen
	hidden   bool   // terminal: the cursor is hidden
	last     string // the last good refresh's body
	lastAt   time.Time
	lastN    int
	finished bool
}

// refresh draws refresh n, run at start: its values, or its failure.
func (w *watcher) refresh(n int, start time.Time, vals []lua.LValue, failure string) {
	terminal, width, height := w.screen(w.out)
	head := fmt.Sprintf("watch %s  every %s  refresh %d  %s", output.CellText(w.label), w.every,
		n, start.UTC().Format("2006-01-02T15:04:05Z"))
	if terminal {
		head += "  (Ctrl-C ends)"
	}
	var body []string
	if failure != "" {
		body = append(body, "error: "+output.CellText(failure))
		if w.lastN > 0 {
			body = append(body, fmt.Sprintf("last good refresh %d at %s:", w.lastN, w.lastAt.UTC().Format("2006-01-02T15:04:05Z")))
			body = append(body, strings.Split(w.last, "\n")...)
		}
	} else {
		body = w.body(vals, start, width, terminal)
		w.last, w.lastAt, w.lastN = strings.Join(body, "\n"), start, n
	}
	lines := append([]string{head}, body...)
	if !terminal {
		_, _ = io.WriteString(w.out, strings.Join(lines, "\n")+"\n\n")
		return
	}
	lines = fitBlock(lines, width, height)
	var b strings.Builder
	if !w.hidden {
		b.WriteString("\x1b[?25l") // hide the cursor while redrawing
		w.hidden = true
	}
	if w.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", w.drawn) // back to the block's first line
	}
	b.WriteString("\r\x1b[J") // and clear it, and what is below
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n")
	w.drawn = len(lines)
	_, _ = io.WriteString(w.out, b.String())
}

// body renders the values: lag() results as the lag view, others as the
// REPL prints them with changed cells marked.
func (w *watcher) body(vals []lua.LValue, now time.Time, width int, terminal bool) []string {
	if len(vals) == 1 {
		if groups, ok := readLagResult(vals[0]); ok {
			return w.lag.render(groups, now, width, terminal)
		}
	}
	if len(vals) == 0 {
		return []string{"(no value)"}
	}
	w.marks.Style = nil
	if terminal {
		w.marks.Style = func(s string) string { return "\x1b[7m" + s + "\x1b[27m" }
	}
	var b strings.Builder
	if err := output.PrintMarked(&b, (*printHost)(w.rt), vals, w.marks); err != nil {
		return []string{"error: " + output.CellText(err.Error())}
	}
	text := strings.TrimRight(b.String(), "\n")
	if n := w.marks.Changed(); n > 0 {
		text += fmt.Sprintf("\n(%d changed since the last refresh, marked %s)", n, output.ChangedMark)
	}
	return strings.Split(text, "\n")
}

// finish shows the cursor again.
func (w *watcher) finish() {
	if w.finished {
		return
	}
	w.finished = true
	if w.hidden {
		_, _ = io.WriteString(w.out, "\x1b[?25h")
	}
}
