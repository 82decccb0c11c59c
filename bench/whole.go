// Package bench measures kadmin-lua against a plain kadm Go program doing
// the same work against the same in-process kfake cluster: whole-process
// runs (Run, driven by `make bench` through bench/cmd/benchwhole) and Go
// benchmarks (bench_test.go). These are benchmarks, never timed tests: a
// slow machine makes the numbers worse, not the build red.
package bench

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed workloads/*.lua
var workloadFS embed.FS

// Scale sizes the whole-process workloads.
type Scale struct {
	LGroups, LTopics, LPartitions int // L: groups, each committed on every partition of the topics
	XTopics, XPartitions          int // X: one group over topics x partitions
	SGroups, STopics, SPartitions int // LS: lag_status's groups over topics x partitions
	GGroups, GTopics, GPartitions int // LG, LGS: groups, each over one of the topics' partitions
	DTopics, DPartitions          int // DT: topics x partitions described
	CTopics                       int // C: topics created then deleted in one script
	RTopics                       int // R: topics altered one call at a time
	MIters                        int // M: iterations of the memory loop
	PRows                         int // PJ, PT: rows a script returns
	Rounds                        int // interleaved rounds of each cluster workload
	StartRounds                   int // rounds of S (start-up)
}

// Full is the scale of docs/benchmarks.md (issue 9's workloads).
var Full = Scale{LGroups: 100, LTopics: 10, LPartitions: 30, XTopics: 100, XPartitions: 1000, SGroups: 3000, STopics: 10, SPartitions: 10,
	GGroups: 65_000, GTopics: 1000, GPartitions: 40, DTopics: 1000, DPartitions: 1000,
	CTopics: 5000, RTopics: 500, MIters: 10_000, PRows: 1_000_000, Rounds: 7, StartRounds: 61}

// Tiny runs every workload once at a toy size: a check that the harness
// works, for `go test`.
var Tiny = Scale{LGroups: 2, LTopics: 2, LPartitions: 3, XTopics: 2, XPartitions: 5, SGroups: 2, STopics: 2, SPartitions: 2,
	GGroups: 3, GTopics: 2, GPartitions: 2, DTopics: 2, DPartitions: 3,
	CTopics: 10, RTopics: 5, MIters: 10, PRows: 1000, Rounds: 1, StartRounds: 1}

// Options configure Run.
type Options struct {
	Scale Scale
	Only  []string  // workload names to run (L, C, S, X, XJ, R); all when empty
	Bin   string    // directory to build the programs in; a temporary one when ""
	Log   io.Writer // progress; nowhere when nil
}

// Sample is one process run.
type Sample struct {
	Wall, CPU time.Duration // elapsed; user+system CPU of the process
	PeakKB    int64         // peak resident set (ru_maxrss)
}

// Result is one workload's measurements: A is kadmin-lua, B the yardstick.
type Result struct {
	Name, Work, Yardstick, Target string
	A, B                          []Sample
	Limit                         float64 // the target ratio of medians; 0: see Target
	LimitMS                       float64 // an absolute target in ms on A's median; 0: none
	LimitMB                       float64 // a peak memory target on A; 0: none
	LimitPeak                     float64 // a target on A's peak RSS over B's; 0: none
	Costs                         string  // with costs: what one more run of A said it cost (--verbose)
}

// Run builds kadmin-lua, the plain kadm program and a hello world, then
// runs every workload: for each, a fresh seeded cluster and Scale.Rounds
// interleaved rounds (kadmin-lua first in even rounds, second in odd ones).
func Run(ctx context.Context, o Options) ([]Result, error) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	bin := o.Bin
	if bin == "" {
		dir, err := os.MkdirTemp("", "kadmin-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		bin = dir
	}
	fmt.Fprintln(log, "building kadmin-lua, plain, hello ...")
	progs, err := build(ctx, bin)
	if err != nil {
		return nil, err
	}
	scripts := filepath.Join(bin, "workloads")
	if err := writeScripts(scripts); err != nil {
		return nil, err
	}
	var out []Result
	for _, w := range workloads() {
		if len(o.Only) > 0 && !slices.Contains(o.Only, w.name) {
			continue
		}
		res, err := runWorkload(ctx, w, o.Scale, progs, scripts, log)
		if err != nil {
			return out, fmt.Errorf("workload %s: %w", w.name, err)
		}
		out = append(out, res)
	}
	if len(o.Only) == 0 || slices.Contains(o.Only, "J") || slices.Contains(o.Only, "T") {
		res, err := PrintRows(ctx, o.Scale.PRows, min(o.Scale.Rounds, 5), log)
		if err != nil {
			return out, fmt.Errorf("workloads J, T: %w", err)
		}
		out = append(out, res...)
	}
	return out, nil
}

// Serve seeds the cluster of one workload, prints the two command lines
// that run it (for profiling one process: perf record, GODEBUG, ...) and
// keeps the cluster up until ctx ends.
func Serve(ctx context.Context, name string, sc Scale, out io.Writer) error {
	for _, w := range workloads() {
		if w.name != name {
			continue
		}
		var s *seeded
		if w.cluster {
			var err error
			if s, err = startCluster(); err != nil {
				return err
			}
			defer s.close()
		}
		args, want, err := w.seed(ctx, s, sc)
		if err != nil {
			return err
		}
		a, b := args(0)
		r := strings.NewReplacer("{kadmin}", "kadmin-lua", "{plain}", "plain", "{hello}", "hello", "{scripts}", "bench/workloads")
		if s != nil {
			r = strings.NewReplacer("{kadmin}", "kadmin-lua", "{plain}", "plain", "{hello}", "hello", "{scripts}", "bench/workloads",
				"{brokers}", strings.Join(s.addrs, ","))
		}
		fmt.Fprintf(out, "%s\n%s\nboth print: %q\n", r.Replace(strings.Join(a, " ")), r.Replace(strings.Join(b, " ")), want)
		<-ctx.Done()
		return nil
	}
	return fmt.Errorf("no workload %q", name)
}

type programs struct{ kadmin, plain, hello, runone string }

func build(ctx context.Context, bin string) (programs, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return programs{}, err
	}
	p := programs{kadmin: filepath.Join(bin, "kadmin-lua"), plain: filepath.Join(bin, "plain"), hello: filepath.Join(bin, "hello"),
		runone: filepath.Join(bin, "runone")}
	for out, pkg := range map[string]string{p.kadmin: "./cmd/kadmin-lua", p.plain: "./bench/plain", p.hello: "./bench/hello",
		p.runone: "./bench/runone"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return programs{}, fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	return p, nil
}

func moduleRoot(ctx context.Context) (string, error) {
	b, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the kadmin-lua module")
	}
	return filepath.Dir(mod), nil
}

func writeScripts(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := workloadFS.ReadDir("workloads")
	if err != nil {
		return err
	}
	for _, e := range entries {
		b, err := workloadFS.ReadFile("workloads/" + e.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func runWorkload(ctx context.Context, w workload, sc Scale, p programs, scripts string, log io.Writer) (Result, error) {
	res := Result{Name: w.name, Work: w.work, Yardstick: w.yardstick, Target: w.target, Limit: w.limit, LimitMS: w.limitMS,
		LimitMB: w.limitMB, LimitPeak: w.limitPeak}
	var s *seeded
	if w.cluster {
		var err error
		if s, err = startCluster(); err != nil {
			return res, err
		}
		defer s.close()
	}
	t0 := time.Now()
	args, want, err := w.seed(ctx, s, sc)
	if err != nil {
		return res, fmt.Errorf("seeding: %w", err)
	}
	res.Work, res.Yardstick = sized(w.work, w, sc), sized(w.yardstick, w, sc)
	fmt.Fprintf(log, "%s: seeded in %v; %s\n", w.name, time.Since(t0).Round(time.Millisecond), res.Work)
	rounds := sc.Rounds
	switch {
	case w.rounds != nil:
		rounds = w.rounds(sc)
	case !w.cluster:
		rounds = sc.StartRounds
	}
	wants := strings.SplitN(want, "|", 2) // "A's|B's" when they differ
	if len(wants) == 1 {
		wants = append(wants, want)
	}
	expand := func(a []string) []string {
		out := make([]string, len(a))
		for i, x := range a {
			x = strings.ReplaceAll(x, "{kadmin}", p.kadmin)
			x = strings.ReplaceAll(x, "{plain}", p.plain)
			x = strings.ReplaceAll(x, "{hello}", p.hello)
			x = strings.ReplaceAll(x, "{scripts}", scripts)
			if s != nil {
				x = strings.ReplaceAll(x, "{brokers}", strings.Join(s.addrs, ","))
			}
			out[i] = x
		}
		return out
	}
	var first string // with want sameOutput: what the first program printed
	if w.cluster && sc.Rounds > 1 {
		// The first describe of a freshly seeded cluster ran twice as
		// long as the next ones, whichever program asked (DT: 1.3 s, then
		// 0.8 s), and round 1's first program is always kadmin-lua: one
		// run of the yardstick, not measured, warms the cluster.
		_, b := args(0)
		if _, _, err := runOnce(ctx, p.runone, expand(b)); err != nil {
			return res, err
		}
	}
	for r := range rounds {
		a, b := args(r)
		a, b = expand(a), expand(b)
		order := []*[]Sample{&res.A, &res.B}
		cmds := [][]string{a, b}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
			cmds[0], cmds[1] = cmds[1], cmds[0]
		}
		for i, c := range cmds {
			sm, out, err := runOnce(ctx, p.runone, c)
			if err != nil {
				return res, err
			}
			want := wants[0]
			if order[i] == &res.B {
				want = wants[1]
			}
			if want == sameOutput {
				if first == "" {
					first = strings.TrimSpace(out)
				}
				want = first
			}
			if want != "" && strings.TrimSpace(out) != want {
				return res, fmt.Errorf("%s printed %q, want %q", filepath.Base(c[0]), truncate(out), want)
			}
			*order[i] = append(*order[i], sm)
		}
		if w.cluster || w.rounds != nil {
			fmt.Fprintf(log, "%s round %d: kadmin-lua %v (cpu %v), %s %v\n", w.name, r+1, res.A[r].Wall.Round(time.Millisecond), res.A[r].CPU.Round(time.Millisecond),
				filepath.Base(b[0]), res.B[r].Wall.Round(time.Millisecond))
		}
	}
	if w.costs {
		a, _ := args(0)
		if res.Costs, err = requestsOf(ctx, expand(a)); err != nil {
			return res, err
		}
		fmt.Fprintf(log, "%s cost of one run:\n%s\n", w.name, res.Costs)
	}
	return res, nil
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// runOnce runs one process to the end through runone (see there why);
// stdout goes to a file (a pipe read by this process would let the
// reader's speed count).
func runOnce(ctx context.Context, runone string, argv []string) (Sample, string, error) {
	f, err := os.CreateTemp("", "kadmin-bench-out-")
	if err != nil {
		return Sample{}, "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	resFile := f.Name() + ".res"
	defer os.Remove(resFile)
	// The kfake clusters live in this process, with a heap of up to a
	// gigabyte or more (DT, LG): collected here, before each run, its next
	// collection is less likely to fall during a measured run, taking one
	// of the two cores from whichever program was running.
	runtime.GC()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, runone, append([]string{resFile}, argv...)...)
	cmd.Stdout, cmd.Stderr = f, &stderr
	cmd.Env = cleanEnv()
	if err := cmd.Run(); err != nil {
		return Sample{}, "", fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, truncate(stderr.String()))
	}
	b, err := os.ReadFile(resFile)
	if err != nil {
		return Sample{}, "", err
	}
	var wall, cpu, peak int64
	var code int
	if _, err := fmt.Sscan(string(b), &wall, &cpu, &peak, &code); err != nil {
		return Sample{}, "", fmt.Errorf("runone wrote %q: %v", b, err)
	}
	// Only the beginning is compared; a workload printing megabytes (XJ)
	// is not read back whole.
	head := make([]byte, 256)
	n, _ := f.ReadAt(head, 0)
	return Sample{Wall: time.Duration(wall), CPU: time.Duration(cpu), PeakKB: peak}, string(head[:n]), nil
}

// cleanEnv is the environment the programs run in: no config file or
// plugins of whoever runs the benchmarks.
func cleanEnv() []string {
	none := filepath.Join(os.TempDir(), "kadmin-bench-none")
	return append(os.Environ(), "HOME="+none, "XDG_CONFIG_HOME="+none, "XDG_STATE_HOME="+none, "KADMIN_PLUGIN_PATH=")
}

func sized(text string, w workload, sc Scale) string {
	r := strings.NewReplacer(
		"G groups x P partitions", fmt.Sprintf("%d groups x %d partitions", sc.LGroups, sc.LTopics*sc.LPartitions),
		"H groups x Q partitions", fmt.Sprintf("%s groups x %d partitions", thousands(sc.SGroups), sc.STopics*sc.SPartitions),
		"N partitions", fmt.Sprintf("%s partitions", thousands(sc.XTopics*sc.XPartitions)),
		"N topics", fmt.Sprintf("%s topics", thousands(map[string]int{"C": sc.CTopics, "R": sc.RTopics}[w.name])),
		"N times", fmt.Sprintf("%s times", thousands(sc.MIters)),
		"N/10 times", fmt.Sprintf("%s times", thousands(max(sc.MIters/10, 1))),
		"N rows", fmt.Sprintf("%s rows", thousands(sc.PRows)),
		"K groups x J partitions", fmt.Sprintf("%s groups x %d partitions", thousands(sc.GGroups), sc.GPartitions),
		"D partitions (E topics)", fmt.Sprintf("%s partitions (%s topics)", thousands(sc.DTopics*sc.DPartitions), thousands(sc.DTopics)),
	)
	return r.Replace(text)
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
