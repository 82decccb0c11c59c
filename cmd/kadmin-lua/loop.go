package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// schedule is run's flags for scheduled jobs: loop mode (--every,
// --max-runs), fleets (--profiles, --parallel) and the metrics file.
// docs/scheduling.md describes them.
type schedule struct {
	every       time.Duration
	maxRuns     int
	profiles    []string
	parallel    int
	metricsFile string
}

func (sc *schedule) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&sc.every, "every", 0, "loop mode: run the script every DURATION (30s, 5m), each run in a fresh Lua state on one Kafka connection, until SIGTERM or --max-runs")
	fl.IntVar(&sc.maxRuns, "max-runs", 0, "with --every: stop after N runs (default: no limit)")
	fl.StringSliceVar(&sc.profiles, "profiles", nil, "run the script once per profile of the config file, concurrently: names or globs (prod-*), comma-separated")
	fl.IntVar(&sc.parallel, "parallel", 4, "with --profiles: how many clusters run at once")
	fl.StringVar(&sc.metricsFile, "metrics-file", "", "after each run, write OpenMetrics text for Prometheus (node_exporter's textfile collector) to FILE, atomically")
}

// active: a flag of this kind was given, so the run goes through runScheduled.
func (sc *schedule) active(cmd *cobra.Command) bool {
	for _, name := range []string{"every", "max-runs", "profiles", "parallel", "metrics-file"} {
		if cmd.Flags().Changed(name) {
			return true
		}
	}
	return false
}

func (sc *schedule) check(cmd *cobra.Command) error {
	fl := cmd.Flags()
	switch {
	case fl.Changed("every") && sc.every <= 0:
		return usageErr(fmt.Errorf("--every must be a positive duration (30s, 5m), got %s", sc.every))
	case fl.Changed("max-runs") && !fl.Changed("every"):
		return usageErr(errors.New("--max-runs needs --every"))
	case fl.Changed("max-runs") && sc.maxRuns < 1:
		return usageErr(fmt.Errorf("--max-runs must be at least 1, got %d", sc.maxRuns))
	case fl.Changed("profiles") && len(sc.profiles) == 0:
		return usageErr(errors.New("--profiles needs at least one profile name"))
	case fl.Changed("parallel") && len(sc.profiles) == 0:
		return usageErr(errors.New("--parallel needs --profiles"))
	case sc.parallel < 1:
		return usageErr(fmt.Errorf("--parallel must be at least 1, got %d", sc.parallel))
	case fl.Changed("metrics-file") && sc.metricsFile == "":
		return usageErr(errors.New("--metrics-file needs a file name"))
	}
	return nil
}

// target is one cluster the script runs on: the default cluster, or one
// profile of a fleet.
type target struct {
	name   string // the profile; "" for the default cluster
	cfg    engine.Config
	err    error                // the profile cannot be used: every run reports this
	shared *luaapi.SharedClient // its connection, kept across runs
	stderr io.Writer            // where its runs' stderr goes (prefixed in a fleet)
	env    func(string) string  // what its scripts read with kafka.env and os.getenv; nil: scriptEnv
}

// outcome is how one run on one target ended.
type outcome struct {
	target  *target
	run     int
	start   time.Time
	took    time.Duration
	code    int
	err     error    // what made the run fail; nil when it finished (checks may have failed)
	checks  []string // failed kafka.check messages
	values  string   // the returned values, formatted per --output
	result  []byte   // fleet -o json: the returned values as compact JSON
	stdout  []byte   // fleet: what the run printed
	metrics []luaapi.Metric
	cost    engine.Cost // what the run's calls cost (cost.go)
	// notifyDeliveries and notifyFailures: kafka.notify's POSTs that went
	// through and those that failed (luaapi.Runtime.NotifyCounts).
	notifyDeliveries, notifyFailures int
}

// loop runs the script on its targets once, or every sc.every.
type loop struct {
	a       *app
	cmd     *cobra.Command
	s       *session
	sc      *schedule
	args    []string
	targets []*target
	fleet   bool
	metrics *metricsFile
	resolve func(string) (engine.Config, error) // kafka.connect{profile=}: nil for the default

	errMu sync.Mutex // one writer at a time on the process's stderr
}

// runScheduled is `run` with --every, --profiles or --metrics-file.
func (a *app) runScheduled(cmd *cobra.Command, args []string, sc *schedule) error {
	if err := sc.check(cmd); err != nil {
		return err
	}
	l := &loop{a: a, cmd: cmd, sc: sc, args: args, fleet: len(sc.profiles) > 0}
	if l.fleet {
		if err := a.fleetFlagsOK(cmd); err != nil {
			return err
		}
	}
	s, err := a.prepare(cmd, !l.fleet)
	if err != nil {
		return err
	}
	defer s.close()
	l.s = s
	if l.fleet {
		if l.targets, err = a.fleetTargets(cmd, sc.profiles); err != nil {
			return err
		}
		l.resolve = a.fleetResolve(cmd)
		for _, t := range l.targets {
			t.stderr = &lineWriter{mu: &l.errMu, w: a.st.Stderr, prefix: luaapi.CellText(t.name) + ": "}
			if a.flags.verbose {
				t.cfg.Verbose = t.stderr
			}
		}
	} else {
		l.targets = []*target{{cfg: s.cfg, stderr: a.st.Stderr}}
	}
	for _, t := range l.targets {
		if t.err == nil {
			t.shared = luaapi.NewSharedClient(t.cfg)
			defer t.shared.Close()
		}
	}
	if sc.metricsFile != "" {
		if l.metrics, err = openMetricsFile(sc.metricsFile, args[0]); err != nil {
			return err
		}
	}
	a.sigs.runs()
	return l.run(cmd.Context())
}

// run runs the iterations: run N starts at the start of the first plus
// N-1 periods. A run that takes longer than the period is reported and the
// periods it overran are skipped: runs never overlap.
func (l *loop) run(ctx context.Context) error {
	first := time.Now()
	slot := 0
	for n := 1; ; n++ {
		began := time.Now()
		outs := l.iteration(ctx, n)
		if ctx.Err() != nil {
			return nil // a signal: run reports it
		}
		var werr error
		if l.metrics != nil {
			if werr = l.metrics.write(outs, time.Now()); werr != nil {
				l.logf("ERROR %s", metricsError(werr))
			}
		}
		// The state store is written after every run, so that a loop
		// killed later loses at most the run under way.
		l.a.saveState()
		if hook := l.a.st.onRun; hook != nil {
			hook(n)
		}
		if l.sc.every == 0 {
			return l.result(outs, werr)
		}
		if l.sc.maxRuns > 0 && n >= l.sc.maxRuns {
			return l.result(outs, werr)
		}
		if allUsage(outs) {
			l.logf("ERROR run=%d stopping: exit 2 (a syntax or usage error) will not go away by running again", n)
			return l.result(outs, werr)
		}
		took := time.Since(began)
		next := int(time.Since(first)/l.sc.every) + 1
		if next <= slot {
			next = slot + 1
		}
		if skipped := next - slot - 1; skipped > 0 {
			l.logf("WARN run=%d overran its period: took %s, every %s; %d run%s skipped", n, roundDur(took), l.sc.every, skipped, plural(skipped))
		}
		slot = next
		wait := time.NewTimer(time.Until(first.Add(time.Duration(slot) * l.sc.every)))
		select {
		case <-ctx.Done():
			wait.Stop()
			return nil
		case <-wait.C:
		}
	}
}

// result is the command's error once the runs are over. A single run
// with no loop ends as `run` always has (its error, "N checks failed");
// otherwise the log lines have said what happened and the exit code is the
// worst of the last runs (one per cluster).
func (l *loop) result(outs []outcome, werr error) error {
	if !l.fleet && l.sc.every == 0 {
		o := outs[0]
		switch {
		case o.err != nil:
			return o.err
		case werr != nil: // worse than failed checks (exitcodes.go)
			return exitf(ExitScript, "%s", metricsError(werr))
		case len(o.checks) > 0:
			return checksFailed(len(o.checks))
		}
		return nil
	}
	code, bad := ExitOK, 0
	for _, o := range outs {
		code = worseExit(code, o.code)
		if o.code != ExitOK {
			bad++
		}
	}
	if werr != nil {
		code = worseExit(code, ExitScript)
	}
	switch {
	case code == ExitOK:
		return nil
	case l.fleet:
		return exitf(code, "%d of %d clusters did not succeed (exit %d)", bad, len(outs), code)
	}
	return exitf(code, "the last run ended with exit %d", code)
}

func metricsError(err error) string { return "writing --metrics-file: " + err.Error() }

func checksFailed(n int) error {
	if n == 1 {
		return exitf(ExitCheck, "1 check failed")
	}
	return exitf(ExitCheck, "%d checks failed", n)
}

// allUsage: every run of the iteration ended with exit 2.
func allUsage(outs []outcome) bool {
	for _, o := range outs {
		if o.code != ExitUsage {
			return false
		}
	}
	return true
}

// iteration runs the script on every target (at most --parallel at once)
// and reports each outcome in the targets' order as soon as it and those
// before it are done.
func (l *loop) iteration(ctx context.Context, n int) []outcome {
	outs := make([]outcome, len(l.targets))
	if !l.fleet {
		outs[0] = l.runOne(ctx, l.targets[0], n, l.a.st.Stdout)
		l.report(&outs[0])
		return outs
	}
	done := make([]chan struct{}, len(l.targets))
	sem := make(chan struct{}, l.sc.parallel)
	for i, t := range l.targets {
		done[i] = make(chan struct{})
		go func() {
			defer close(done[i])
			sem <- struct{}{}
			defer func() { <-sem }()
			var buf strings.Builder
			outs[i] = l.runOne(ctx, t, n, &buf)
			t.stderr.(*lineWriter).flush()
			outs[i].stdout = []byte(buf.String())
		}()
	}
	for i := range l.targets {
		<-done[i]
		l.report(&outs[i])
	}
	return outs
}

// runOne runs the script once on t in a fresh Lua state.
func (l *loop) runOne(ctx context.Context, t *target, n int, stdout io.Writer) (o outcome) {
	o = outcome{target: t, run: n, start: time.Now()}
	defer func() {
		o.took = time.Since(o.start)
		if sig, _ := l.a.sigs.result(); sig != nil && ctx.Err() != nil {
			o.code, o.err = signalCode(sig), nil
		}
	}()
	if t.err != nil {
		o.err, o.code = t.err, exitCode(t.err)
		return o
	}
	rt, err := l.a.newRuntime(l.cmd, l.s, luaapi.Options{Shared: t.shared, Cluster: t.name,
		Resolve: l.resolve, Stdout: stdout, Stderr: t.stderr, Env: t.env})
	if err != nil {
		o.err, o.code = err, exitCode(err)
		return o
	}
	defer rt.Close()
	stateBase := l.a.stateTopicCost(t.cfg, false)
	vals, err := l.a.scriptRunner(l.args)(ctx, rt)
	o.checks, o.metrics = rt.CheckFailures(), rt.Metrics()
	o.notifyDeliveries, o.notifyFailures = rt.NotifyCounts()
	if err == nil && len(vals) > 0 {
		err = l.format(rt, vals, &o)
	}
	// After formatting: a returned iterator reads the cluster as its rows
	// are made, and that is the run's cost too; so is writing the state of
	// its cluster kept in a topic (on a client of its own), done here for
	// that (a file is written after the run).
	if ctx.Err() == nil {
		l.a.saveStateTopics(t.cfg, false)
	}
	o.cost = rt.Cost().Add(l.a.stateTopicCost(t.cfg, false).Sub(stateBase))
	if l.a.flags.verbose {
		writeCost(t.stderr, o.cost)
	}
	o.err, o.code = err, exitCode(err)
	if err == nil && len(o.checks) > 0 {
		o.code = ExitCheck
	}
	return o
}

// format turns the returned values into output while their Lua state is
// alive: text per --output, or for a fleet's JSON a compact value.
func (l *loop) format(rt *luaapi.Runtime, vals []lua.LValue, o *outcome) error {
	if l.fleet && l.a.flags.jsonLines() {
		b, err := compactJSON(rt, vals)
		if err != nil {
			return printError(err)
		}
		o.result = b
		return nil
	}
	out, err := rt.Format(vals, l.a.flags.output)
	if err != nil {
		return printError(err)
	}
	o.values = out
	return nil
}

// report writes one outcome: its output on stdout (a fleet's grouped per
// cluster, or one JSON line per cluster) and, in a loop or a fleet, its
// line on stderr.
func (l *loop) report(o *outcome) {
	w := l.a.st.Stdout
	switch {
	case !l.fleet:
		_, _ = io.WriteString(w, o.values)
	case l.a.flags.jsonLines():
		_, _ = w.Write(append(fleetJSON(o, l.sc.every > 0), '\n'))
	default:
		var b strings.Builder
		fmt.Fprintf(&b, "== %s ==\n", luaapi.CellText(o.target.name))
		b.Write(o.stdout)
		if len(o.stdout) > 0 && o.stdout[len(o.stdout)-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteString(o.values)
		_, _ = io.WriteString(w, b.String())
	}
	if l.fleet || l.sc.every > 0 {
		l.logf("%s", l.runLine(o))
	}
}

// runLine is an outcome's log line, without its time: the level (INFO,
// WARN for failed checks, ERROR) then "run=3 profile=prod exit=0
// duration=1.2s checks_failed=0", and error="..." when the run failed.
func (l *loop) runLine(o *outcome) string {
	var b strings.Builder
	switch o.code {
	case ExitOK:
		b.WriteString("INFO")
	case ExitCheck:
		b.WriteString("WARN")
	default:
		b.WriteString("ERROR")
	}
	if l.sc.every > 0 {
		fmt.Fprintf(&b, " run=%d", o.run)
	}
	if o.target.name != "" {
		fmt.Fprintf(&b, " profile=%s", luaapi.LogValue(o.target.name))
	}
	fmt.Fprintf(&b, " exit=%d duration=%s checks_failed=%d", o.code, roundDur(o.took), len(o.checks))
	if o.err != nil {
		fmt.Fprintf(&b, " error=%q", strings.TrimRight(o.err.Error(), "\n"))
	}
	return b.String()
}

// logf writes one line on stderr, stamped with the time as kafka.log's are.
func (l *loop) logf(format string, args ...any) {
	line := time.Now().UTC().Format(time.RFC3339) + " " + fmt.Sprintf(format, args...) + "\n"
	l.errMu.Lock()
	defer l.errMu.Unlock()
	_, _ = io.WriteString(l.a.st.Stderr, line)
}

func roundDur(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond * 100)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
