// Package luatest runs the tests of runbooks and plugins written in Lua
// (`kadmin-lua test`): files named *_test.lua, each registering tests with
// test(name, function() ... end). Each test runs in a Lua state of its own
// against a fresh in-process Kafka cluster (package fixture) seeded from
// the file's fixture, and may call any function, run a runbook by name,
// inject faults, and check what it sees with assert and expect. A failed
// check or an error fails that test and names its line.
//
// The runtimes are built as `kadmin-lua run` builds its own (Options.
// NewRuntime), so the audit log, dry-run and every other run-mode rule
// hold in a test as they do in production; and a test reaches no cluster
// but its own unless the run allows it (Options.AllowRealClusters).
package luatest

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// DefaultTimeout is how long one test may run, its cluster's start
// included.
const DefaultTimeout = 60 * time.Second

// Options configure a run.
type Options struct {
	// Paths are test files and directories searched for *_test.lua
	// (recursively); none means the current directory.
	Paths []string
	// Run, when set, runs only the tests whose name it matches.
	Run *regexp.Regexp
	// Fixture is the fixture file of test files that give none.
	Fixture string
	// Timeout bounds each test; DefaultTimeout when zero.
	Timeout time.Duration
	// AllowRealClusters lets kafka.connect reach brokers other than the
	// test's own cluster. Off, such a call raises.
	AllowRealClusters bool
	// DryRun runs every test under --dry-run.
	DryRun bool
	// Verbose prints what each test printed, passed or not.
	Verbose bool
	// Stdout receives the report.
	Stdout io.Writer
	// NewRuntime builds each Lua runtime: the test file's, and each
	// runbook's that run() starts. The CLI passes its own (plugins,
	// environment, memory limit). nil: luaapi.New.
	NewRuntime func(luaapi.Options) (*luaapi.Runtime, error)
}

// Result is how one test ended.
type Result struct {
	File     string        `json:"file"`
	Name     string        `json:"name"`
	Failed   bool          `json:"failed"`
	Message  string        `json:"message,omitempty"`
	Output   string        `json:"output,omitempty"` // what the test printed
	Duration time.Duration `json:"duration_ns"`
}

// Summary is a whole run.
type Summary struct {
	Results        []Result
	Passed, Failed int
	Duration       time.Duration
}

// Run runs the tests the options name and reports each, then a closing
// "N passed, N failed" line. An error means the run itself could not
// happen (no test file, a path that cannot be read); failed tests are in
// the summary.
func Run(ctx context.Context, o Options) (*Summary, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.NewRuntime == nil {
		o.NewRuntime = func(lo luaapi.Options) (*luaapi.Runtime, error) { return luaapi.New(lo), nil }
	}
	files, err := Discover(o.Paths)
	if err != nil {
		return nil, err
	}
	r := &runner{o: o, fixtures: map[string]*fixture.Fixture{}}
	start := time.Now()
	sum := &Summary{}
	for _, f := range files {
		for _, res := range r.file(ctx, f) {
			sum.Results = append(sum.Results, res)
			if res.Failed {
				sum.Failed++
			} else {
				sum.Passed++
			}
			r.report(res)
		}
		if ctx.Err() != nil {
			break
		}
	}
	sum.Duration = time.Since(start)
	fmt.Fprintf(o.Stdout, "%d passed, %d failed (%s)\n", sum.Passed, sum.Failed, sum.Duration.Round(time.Millisecond))
	return sum, nil
}

// Discover lists the test files paths name: files as given, directories
// searched for *_test.lua, in name order.
func Discover(paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("test: %v", err)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), "_test.lua") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("test: %v", err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("test: no *_test.lua files in %s", strings.Join(paths, ", "))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

type runner struct {
	o        Options
	mu       sync.Mutex
	fixtures map[string]*fixture.Fixture // fixture files read, by path
}

// report prints one result.
func (r *runner) report(res Result) {
	w := r.o.Stdout
	d := res.Duration.Round(time.Millisecond)
	file, name := luaapi.TerminalText(res.File), luaapi.TerminalText(res.Name)
	if !res.Failed {
		fmt.Fprintf(w, "ok    %s: %s (%s)\n", file, name, d)
		if r.o.Verbose && res.Output != "" {
			fmt.Fprint(w, indent(res.Output))
		}
		return
	}
	fmt.Fprintf(w, "FAIL  %s: %s (%s)\n", file, name, d)
	fmt.Fprint(w, indent(res.Message+"\n"))
	if res.Output != "" {
		fmt.Fprint(w, indent("output:\n"+res.Output))
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" {
			b.WriteString("      " + luaapi.TerminalText(strings.TrimSuffix(line, "\n")) + "\n")
		}
	}
	return b.String()
}

// registered is a test a file registered.
type registered struct {
	name string
	fn   *lua.LFunction
	// fixture is the test's own (its fixture option), nil for the file's.
	fixture    *fixture.Fixture
	fixtureErr error
	where      string // file:line of the test() call
	timeout    time.Duration
}

// file runs one test file: once to learn its tests and fixture (no
// cluster), then each test in a state and a cluster of its own.
func (r *runner) file(ctx context.Context, path string) []Result {
	if _, err := boundedfile.Read(path, luaapi.MaxScriptBytes); err != nil {
		return []Result{{File: path, Name: "(file)", Failed: true, Message: "cannot read the test file: " + err.Error()}}
	}
	start := time.Now()
	var out strings.Builder
	rt, err := r.o.NewRuntime(luaapi.Options{Stdout: &out, Stderr: &out, Env: noEnv, Stdin: strings.NewReader(""),
		ConnectGuard: func([]string) error {
			return fmt.Errorf("no cluster while a test file is loaded: connect inside a test")
		}})
	if err != nil {
		return []Result{{File: path, Name: "(file)", Failed: true, Message: err.Error()}}
	}
	col := &collected{}
	t := &testEnv{r: r, rt: rt, file: path, collect: col}
	t.install()
	// As a script: arg[0] is the file, and require finds modules beside it
	// (a plugin's test requires the plugin). Loading is bounded like a test.
	lctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	_, err = rt.DoFile(lctx, path, nil)
	cancel()
	rt.Close()
	if lctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("%s: loading the file took over %s: its top level should only register tests", path, r.o.Timeout)
	}
	if err != nil {
		return []Result{{File: path, Name: "(file)", Failed: true, Message: err.Error(), Output: out.String(), Duration: time.Since(start)}}
	}
	if len(col.tests) == 0 {
		return []Result{{File: path, Name: "(file)", Failed: true, Message: "the file registers no test: test(name, function() ... end)", Duration: time.Since(start)}}
	}
	var results []Result
	for i, reg := range col.tests {
		if r.o.Run != nil && !r.o.Run.MatchString(reg.name) {
			continue
		}
		results = append(results, r.test(ctx, path, col, i))
		if ctx.Err() != nil {
			break
		}
	}
	return results
}

// noEnv is a test's environment: empty, so that a test passes or fails the
// same on every machine (run(..., {env = {...}}) gives a runbook its own).
func noEnv(string) string { return "" }

// fixtureFor is the fixture a test runs on: its own, the file's, the
// run's --fixture file, or the default (three empty brokers).
func (r *runner) fixtureFor(col *collected, reg registered, file string) (*fixture.Fixture, error) {
	if reg.fixture != nil || reg.fixtureErr != nil {
		return reg.fixture, reg.fixtureErr
	}
	if col.fixture != nil {
		return col.fixture, nil
	}
	if r.o.Fixture != "" {
		return r.fixtureFile(r.o.Fixture)
	}
	f := &fixture.Fixture{}
	return f, fixture.Validate(f)
}

// fixtureFile reads a fixture file once per run.
func (r *runner) fixtureFile(path string) (*fixture.Fixture, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.fixtures[path]; ok {
		return f, nil
	}
	f, err := fixture.Read(path)
	if err != nil {
		return nil, err
	}
	r.fixtures[path] = f
	return f, nil
}

// test runs test i of a file in a fresh state on a fresh cluster.
func (r *runner) test(ctx context.Context, path string, col *collected, i int) (res Result) {
	reg := col.tests[i]
	res = Result{File: path, Name: reg.name}
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	timeout := r.o.Timeout
	if reg.timeout > 0 {
		timeout = reg.timeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	fx, err := r.fixtureFor(col, reg, path)
	if err != nil {
		res.Failed, res.Message = true, err.Error()
		return res
	}
	cluster, err := fixture.Start(tctx, fx)
	if err != nil {
		res.Failed, res.Message = true, err.Error()
		return res
	}
	defer cluster.Close()
	dir, err := os.MkdirTemp("", "kadmin-lua-test-")
	if err != nil {
		res.Failed, res.Message = true, err.Error()
		return res
	}
	defer os.RemoveAll(dir)
	auditPath := filepath.Join(dir, "audit.jsonl")
	var audit *auditlog.Log
	if !r.o.DryRun { // a dry run opens no audit log, as the CLI's
		if audit, err = auditlog.Open(auditPath); err != nil {
			res.Failed, res.Message = true, err.Error()
			return res
		}
		defer audit.Close()
	}
	var out lockedBuffer
	t := &testEnv{r: r, file: path, cluster: cluster, fixture: fx, auditPath: auditPath, audit: audit, out: &out, collect: &collected{}}
	rt, err := r.o.NewRuntime(luaapi.Options{Config: t.config(false), Stdout: &out, Stderr: &out, Env: noEnv,
		Stdin: strings.NewReader(""), ConnectGuard: t.guard})
	if err != nil {
		res.Failed, res.Message = true, err.Error()
		return res
	}
	t.rt = rt
	t.install()

	done := make(chan error, 1)
	go func() {
		_, err := rt.DoFile(tctx, path, nil)
		if err == nil {
			if len(t.collect.tests) <= i || t.collect.tests[i].name != reg.name {
				err = fmt.Errorf("%s registers other tests when run again (test %d is no longer %q): register tests unconditionally", path, i+1, reg.name)
			} else {
				_, err = rt.Call(tctx, t.collect.tests[i].fn)
			}
		}
		done <- err
	}()
	select {
	case err = <-done:
		rt.Close()
	case <-time.After(timeout + 5*time.Second):
		// The test ignores its context (Go code blocked): leave its state
		// to the goroutine and go on; closing it now would race.
		err = context.DeadlineExceeded
	}
	res.Output = out.String()
	switch {
	case tctx.Err() == context.DeadlineExceeded || err == context.DeadlineExceeded:
		res.Failed = true
		res.Message = fmt.Sprintf("%s: timed out after %s: the test was stopped (test(name, fn, {timeout = ms}) gives it longer)", reg.where, timeout)
	case err != nil:
		res.Failed, res.Message = true, err.Error()
	case len(rt.CheckFailures()) > 0:
		res.Failed, res.Message = true, "kafka.check failed: "+strings.Join(rt.CheckFailures(), "; ")
	}
	return res
}

// lockedBuffer collects a test's output: its own and its clients'.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 1<<20 {
		return len(p), nil // a test printing without end: keep the first MiB
	}
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
