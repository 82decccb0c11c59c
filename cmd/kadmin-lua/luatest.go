package main

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/luaapi/luatest"
)

// testCmd is `kadmin-lua test [DIR|FILE...]`.
func (a *app) testCmd() *cobra.Command {
	var (
		runPattern, junit string
		timeout           time.Duration
		allowReal, show   bool
	)
	cmd := &cobra.Command{
		Use:   "test [DIR|FILE...]",
		Short: "Run the *_test.lua files: each test on a fresh in-process cluster",
		Long: `Run tests written in Lua: each *_test.lua file under DIR (the current
directory when none is given), or each FILE, registers tests with
test(name, function() ... end). Each test runs in a Lua state of its own on a
fresh in-process Kafka cluster seeded from the file's fixture{...} (or
fixture("file.json"), or --fixture FILE, or three empty brokers). A failed
assert or expect, or an error, fails that test at its line.

In a test: every kadmin-lua function; run(NAME, ARGS...) runs a runbook (a file
beside the test or in the directory above a tests/ directory, a built-in
runbook, a plugin command) as kadmin-lua run does and returns {exit, rows,
stdout, stderr, plan, changes}; dry_run(NAME, ...); assert.dry_run_matches(NAME,
...) checks that the dry run announced exactly what the real run did;
fault{api=, error=|latency_ms=, times=}; broker_down(id), broker_up(id);
snapshot() and changes(before, after); audit(). Tests see no environment
variables and reach no cluster but their own (--allow-real-clusters lifts
that). See docs/authoring.md.

Prints a line per test and "N passed, N failed"; exit 0 when all passed, 1 when
one failed, 2 when there is nothing to run.`,
		Example: `  kadmin-lua test
  kadmin-lua test scripts/tests --run 'dry run' --junit report.xml
  kadmin-lua --fixture prod.json test my-runbook_test.lua`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o := luatest.Options{Paths: args, Fixture: a.flags.fixture, Timeout: timeout, AllowRealClusters: allowReal,
				DryRun: a.flags.dryRun, Verbose: show, Stdout: a.st.Stdout}
			if runPattern != "" {
				re, err := regexp.Compile(runPattern)
				if err != nil {
					return usageErr(fmt.Errorf("--run: %v", err))
				}
				o.Run = re
			}
			dirs, err := a.pluginDirs()
			if err != nil {
				return err
			}
			// Each runtime is built as run builds one: plugins, memory
			// limit, output; the runner gives the cluster, the audit log,
			// the environment and the connect guard.
			o.NewRuntime = func(lo luaapi.Options) (*luaapi.Runtime, error) {
				if cmd.Flags().Changed("timeout") {
					lo.Config.Timeout = a.flags.timeout
				}
				lo.Config.Verbose = a.verbose()
				return a.newRuntime(cmd, &session{dirs: dirs}, lo)
			}
			sum, err := luatest.Run(cmd.Context(), o)
			if err != nil {
				return usageErr(err)
			}
			if junit != "" {
				if err := luatest.WriteJUnit(junit, sum); err != nil {
					return exitf(ExitScript, "test: --junit: %v", err)
				}
			}
			if sum.Failed > 0 {
				return exitf(ExitScript, "%d of %d tests failed", sum.Failed, sum.Failed+sum.Passed)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&runPattern, "run", "", "run only the tests whose name matches (RE2); -run works too")
	f.StringVar(&junit, "junit", "", "write a JUnit XML report to this file, for CI")
	f.DurationVar(&timeout, "test-timeout", luatest.DefaultTimeout, "stop a test that runs longer, and name it")
	f.BoolVar(&allowReal, "allow-real-clusters", false, "let tests kafka.connect to clusters other than their own")
	f.BoolVarP(&show, "show-output", "v", false, "print what passing tests printed too")
	return cmd
}

// goStyleTestFlags lets `kadmin-lua test -run X -junit F` read as Go's test
// flags do (pflag would read -run as -r un), when the command is test:
// `run SCRIPT -run` keeps its script's arguments as they are.
func goStyleTestFlags(root *cobra.Command, args []string) []string {
	if c, _, err := root.Find(args); err != nil || c.Name() != "test" {
		return args
	}
	out := make([]string, len(args))
	copy(out, args)
	inTest := false
	for i, arg := range out {
		if arg == "--" {
			break
		}
		if !inTest {
			inTest = arg == "test"
			continue
		}
		for _, name := range []string{"run", "junit"} {
			if arg == "-"+name || strings.HasPrefix(arg, "-"+name+"=") {
				out[i] = "-" + arg
			}
		}
	}
	return out
}
