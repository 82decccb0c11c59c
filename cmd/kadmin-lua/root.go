package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	lua "github.com/yuin/gopher-lua"
	"golang.org/x/term"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/repl"
)

// run is the whole CLI: it parses st.Args, does the work and returns the
// exit code. It never exits the process itself, so every cleanup (clients,
// audit log, embedded cluster) has run when main exits.
func run(st *State) (code int) {
	// A panic here is a bug; it must not exit 2 as the runtime would (2
	// means a usage error). Fatal runtime errors cannot be caught: see
	// memory.go for how the worst of them is prevented.
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(st.Stderr, "kadmin-lua: internal error (a bug, please report it): %s\n%s",
				luaapi.TerminalText(fmt.Sprint(p)), debug.Stack())
			code = ExitScript
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := watchSignals(st, cancel)
	defer sigs.stop()
	a := &app{st: st, sigs: sigs}
	defer a.closeEmbedded()
	defer a.closeAudit()
	defer a.closeState()
	root := a.rootCmd()
	root.SetArgs(goStyleTestFlags(root, st.Args)) // luatest.go
	err := root.ExecuteContext(ctx)
	if sig, exited := sigs.result(); sig != nil {
		if !exited { // the watcher has said so already when it exited
			fmt.Fprintf(st.Stderr, "kadmin-lua: %s\n", signalMessage(sig))
		}
		return signalCode(sig)
	}
	code = exitCode(err)
	if err != nil && err.Error() != "" {
		// Messages quote names from the cluster: escaped, like table cells.
		fmt.Fprintf(st.Stderr, "kadmin-lua: %s\n", luaapi.MessageText(strings.TrimRight(err.Error(), "\n")))
		if needsHint(err) {
			if f := functionAsCommand(st.Args); f != "" {
				// `kadmin-lua lag`: a Lua function typed as a command.
				fmt.Fprintf(st.Stderr, "%s is a Lua function, not a command: run it with kadmin-lua -e '%s()', or type it in the REPL (kadmin-lua).\n", f, f)
			}
			fmt.Fprintln(st.Stderr, "Run 'kadmin-lua --help' for usage.")
		}
	}
	return code
}

// functionAsCommand is the first argument when it names a Lua function
// (kadmin-lua lag), else "".
func functionAsCommand(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return "" // a flag first: not the case this hint is for
		}
		if f := luaapi.Lookup(a); f != nil && f.IsAdmin() {
			return f.Name
		}
		return ""
	}
	return ""
}

// needsHint reports a command-line mistake: one the commands marked, or one
// they did not make at all (cobra's own: unknown command, wrong number of
// arguments).
func needsHint(err error) bool {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.hint
	}
	var re *luaapi.RunError
	var e *engine.Error
	return !errors.As(err, &re) && !errors.As(err, &e)
}

// app holds the parsed global flags and the process state.
type app struct {
	st       *State
	sigs     *signalWatcher
	flags    globalFlags
	audit    auditState    // safety.go
	state    stateHolder   // lagstate.go
	embedded *demo.Cluster // embedded.go

	copy *fixture.Cluster // fixture.go: --fixture's in-process cluster
}

type globalFlags struct {
	brokers       []string
	profile       string
	configPath    string
	commandConfig string

	saslMechanism, saslUsername string

	tls                               bool
	tlsCA, tlsCert, tlsKey, tlsServer string
	tlsInsecure                       bool
	registry                          registryFlags // registry.go
	output                            string
	dryRun, yes, embedded             bool
	fixture                           string
	timeout                           time.Duration
	auditLog                          string
	state                             stateFlags
	verbose                           bool
	pluginPath                        []string
	eval                              string
	maxMemory                         byteSize
}

const rootLong = `kadmin-lua administers Kafka from Lua.

  kadmin-lua                      REPL when stdin is a terminal, else runs stdin as a script
  kadmin-lua run FILE [ARGS...]   run a script; ARGS in arg[1..] and in ... (arg[0] = FILE)
  kadmin-lua -e CODE              run a chunk and print what it returns (per --output)
  kadmin-lua doc [NAME]           the API reference, or one function's documentation
  kadmin-lua plugins              the plugins loaded, their functions and commands
  kadmin-lua undo AUDIT.jsonl     revert what an audit log says was changed, newest first
  kadmin-lua plan SPEC            diff a desired-state spec against the cluster (--out PLAN.json)
  kadmin-lua apply PLAN.json      apply a reviewed plan (or SPEC: plan and apply after confirmation)
  kadmin-lua runbooks             the built-in runbooks and plugin commands (run NAME --help)
  kadmin-lua check FILE...        find mistakes in scripts without running them; list what they change
  kadmin-lua meta --luals DIR     editor types (LuaLS) for a runbook folder; --luacheck FILE for luacheck
  kadmin-lua version              the version, commit, Go and franz-go versions (also --version)
  kadmin-lua completion SHELL     a bash, zsh, fish or powershell completion script
  kadmin-lua --embedded           the same on an in-process demo cluster
  kadmin-lua --fixture FILE       the same on an in-process cluster seeded from FILE
  kadmin-lua test [DIR|FILE...]   run *_test.lua files, each test on a fresh in-process cluster
  kadmin-lua snapshot -o FILE     write the cluster's layout and state as a fixture file
  kadmin-lua rehearse FILE [ARGS] run a runbook on a copy of the cluster and print what it changed
  kadmin-lua new runbook NAME     write a runbook and its test (also: new plugin NAME)

The SASL password comes from $KADMIN_SASL_PASSWORD (or the variable a profile
names), a --command-config file, or a prompt on a terminal; never from a flag.
OAUTHBEARER, GSSAPI (Kerberos), AWS_MSK_IAM and Java key stores are set up in a
profile or a --command-config file (docs/cli.md). The Schema Registry's password
comes from $KADMIN_SCHEMA_REGISTRY_PASSWORD, a bearer token from
$KADMIN_SCHEMA_REGISTRY_TOKEN (or the variables a profile names).
Exit codes: 0 ok, 1 script error, 2 usage or syntax error, 3 Kafka error,
4 a kafka.check failed, 130 interrupted (SIGINT), 143 terminated (SIGTERM).
See docs/cli.md.`

func (a *app) rootCmd() *cobra.Command {
	f := &a.flags
	version := currentVersion() // parsing the build information is a hundredth of a start
	root := &cobra.Command{
		Use:           "kadmin-lua",
		Short:         "Administer Kafka from Lua: a REPL, a script runner, an API reference",
		Long:          rootLong,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		CompletionOptions: cobra.CompletionOptions{
			DisableDefaultCmd: true,
		},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(luaapi.Outputs, f.output) {
				return usageErr(fmt.Errorf("--output must be one of %s, got %q", strings.Join(luaapi.Outputs, ", "), f.output))
			}
			return nil
		},
		RunE:    a.runRoot,
		Version: version.Version,
	}
	root.SetVersionTemplate(version.Text())
	root.SetIn(a.st.Stdin)
	root.SetOut(a.st.Stdout)
	root.SetErr(a.st.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })

	pf := root.PersistentFlags()
	pf.StringSliceVarP(&f.brokers, "brokers", "b", nil, "seed brokers, host:port, comma-separated (env KADMIN_BROKERS)")
	pf.StringVar(&f.profile, "profile", "", "connection profile from the config file (env KADMIN_PROFILE)")
	pf.StringVar(&f.configPath, "config", "", "config file (default $XDG_CONFIG_HOME/kadmin-lua/config.json or ~/.config/kadmin-lua/config.json)")
	pf.StringVar(&f.commandConfig, "command-config", "", "Java client.properties file (bootstrap.servers, security.protocol, sasl.*, ssl.* with JKS, PKCS12 or PEM stores)")
	pf.StringVar(&f.saslMechanism, "sasl-mechanism", "", "SASL mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (with --sasl-username), OAUTHBEARER (token from $KADMIN_SASL_OAUTH_TOKEN), GSSAPI (Kerberos ticket cache), AWS_MSK_IAM (AWS credential chain)")
	pf.StringVar(&f.saslUsername, "sasl-username", "", "SASL user name (password from $KADMIN_SASL_PASSWORD or a prompt)")
	pf.BoolVar(&f.tls, "tls", false, "connect with TLS (implied by the other --tls-* flags)")
	pf.StringVar(&f.tlsCA, "tls-ca", "", "PEM file of CA certificates to verify brokers with (default: system roots)")
	pf.StringVar(&f.tlsCert, "tls-cert", "", "PEM client certificate file")
	pf.StringVar(&f.tlsKey, "tls-key", "", "PEM client key file")
	pf.StringVar(&f.tlsServer, "tls-server-name", "", "server name to verify broker certificates against")
	pf.BoolVar(&f.tlsInsecure, "tls-insecure-skip-verify", false, "do not verify broker certificates (unsafe)")
	f.registry.register(pf)
	pf.StringVarP(&f.output, "output", "o", "table", "output format of returned values and kafka.pp: table, json, ndjson (a line per row) or yaml")
	pf.BoolVar(&f.dryRun, "dry-run", false, "mutations validate and print their plan to stderr but change nothing")
	pf.BoolVar(&f.yes, "yes", false, "REPL: do not ask before destructive calls")
	pf.DurationVar(&f.timeout, "timeout", engine.DefaultTimeout, "deadline of each Kafka call, retries included")
	pf.StringVar(&f.auditLog, "audit-log", "", "write every mutation ahead to this file: an intent line before the request, an outcome line after")
	pf.StringVar(&f.state.path, "state", "", "keep lag_status's samples and kafka.notify's alerts between runs in this file, or with kafka:TOPIC[/KEY] in a compacted topic of the cluster itself (env KADMIN_STATE)")
	pf.DurationVar(&f.state.window, "state-window", state.DefaultWindow, "the span of time lag_status judges: the samples taken within it, and the one before")
	pf.IntVar(&f.state.samples, "state-samples", state.DefaultSamples, "the most samples a window keeps per partition (a faster loop's window is thinned)")
	pf.IntVar(&f.state.maxEntries, "state-max-partitions", state.DefaultMaxEntries, "partitions the state store keeps in all; past it the groups sampled longest ago are dropped")
	pf.DurationVar(&f.state.expire, "state-expire", state.DefaultExpireAfter, "drop a group from the state store when it was not sampled for this long")
	pf.DurationVar(&f.state.wait, "state-wait", state.DefaultLockWait, "how long to wait for another run holding the --state file before giving up (exit 1)")
	pf.BoolVar(&f.verbose, "verbose", false, "show connection attempts and the requests sent, on stderr (never their contents)")
	pf.StringSliceVar(&f.pluginPath, "plugin-path", nil, "plugin directories, also searched by require; comma-separated or repeated (env KADMIN_PLUGIN_PATH)")
	pf.BoolVar(&f.embedded, "embedded", false, "start an in-process 3-broker demo cluster and use it")
	pf.StringVar(&f.fixture, "fixture", "", "start an in-process cluster seeded from FILE (a fixture or a snapshot) and use it; for test, the fixture of files that give none")
	f.maxMemory = byteSize(defaultMemoryLimit(cgroupMemoryLimit()))
	pf.Var(&f.maxMemory, "max-memory", "stop a script whose memory passes this size (exit 1), e.g. 512MiB; 0 for no limit; default 2GiB, or 3/4 of a container's memory limit when less")
	root.Flags().StringVarP(&f.eval, "eval", "e", "", "run CODE and print what it returns")

	root.AddCommand(a.runCmd(), a.docCmd(), a.pluginsCmd(), a.undoCmd(), a.planCmd(), a.applyCmd(), a.runbooksCmd(), a.versionCmd(), a.completionCmd())
	root.AddCommand(a.metaCmd())
	root.AddCommand(a.checkCmd())
	root.AddCommand(a.testCmd())
	root.AddCommand(a.snapshotCmd())
	root.AddCommand(a.rehearseCmd())
	root.AddCommand(a.newCmd())
	a.registerCompletions(root)
	return root
}

// runRoot is `kadmin-lua [flags]`: -e CODE, else the REPL on a terminal,
// else a script read from stdin.
func (a *app) runRoot(cmd *cobra.Command, _ []string) error {
	switch {
	case cmd.Flags().Changed("eval"):
		return a.runScript(cmd, func(ctx context.Context, rt *luaapi.Runtime) ([]lua.LValue, error) {
			return evalChunk(ctx, rt, a.flags.eval)
		})
	case a.st.IsTerminal(a.st.Stdin):
		return a.runREPL(cmd)
	default:
		src, err := luaapi.ReadBounded(a.st.Stdin, luaapi.MaxScriptBytes)
		if err != nil {
			return exitf(ExitScript, "reading script from stdin: %v", err)
		}
		return a.runScript(cmd, func(ctx context.Context, rt *luaapi.Runtime) ([]lua.LValue, error) {
			return rt.DoString(ctx, "stdin", string(src))
		})
	}
}

// evalChunk runs -e CODE. Like the REPL it tries "return CODE" first, so
// `-e 'list_topics()'` prints the topics.
func evalChunk(ctx context.Context, rt *luaapi.Runtime, code string) ([]lua.LValue, error) {
	const name = "(command line)"
	if !startsStatement(code) {
		if fn, err := rt.Compile(name, "return "+code); err == nil {
			return rt.Call(ctx, fn)
		}
	}
	fn, err := rt.Compile(name, code)
	if err != nil {
		return nil, err
	}
	return rt.Call(ctx, fn)
}

// startsStatement: code begins with a keyword no expression begins with
// (`-e 'return 1'`), so "return CODE" cannot compile: compiling it anyway
// and building its syntax error was a hundredth of such a start.
func startsStatement(code string) bool {
	code = strings.TrimLeft(code, " \t\r\n")
	for _, kw := range []string{"return", "local", "if", "for", "while", "repeat", "do", "break"} {
		if rest, ok := strings.CutPrefix(code, kw); ok && (rest == "" || !isIdentByte(rest[0])) {
			return true
		}
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

func (a *app) runREPL(cmd *cobra.Command) error {
	s, err := a.open(cmd)
	if err != nil {
		return err
	}
	defer s.close()
	// An exit at once (SIGTERM, a second Ctrl-C) must not leave the
	// terminal in the line editor's raw mode.
	if f, ok := a.st.Stdin.(*os.File); ok && a.st.IsTerminal(f) {
		if old, err := term.GetState(int(f.Fd())); err == nil {
			a.sigs.onExit(func() { _ = term.Restore(int(f.Fd()), old) })
		}
	}
	a.sigs.prompt()
	err = repl.Run(cmd.Context(), s.rt, repl.Options{
		Stdin:         a.st.Stdin,
		Stdout:        a.st.Stdout,
		Stderr:        a.st.Stderr,
		Interruptible: a.sigs.chunk,
		HistoryPath:   historyPath(a.st.Env),
		Yes:           a.flags.yes,
		Output:        a.flags.output,
		Version:       currentVersion().Short(),
	})
	return withCode(ExitScript, err)
}

// historyPath is $XDG_STATE_HOME/kadmin-lua/history, else
// ~/.local/state/kadmin-lua/history; "" (no history) without either.
func historyPath(env func(string) string) string {
	if d := env("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "kadmin-lua", "history")
	}
	if h := env("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "kadmin-lua", "history")
	}
	return ""
}

// runScript runs one chunk in script mode: SIGINT cancels it (see
// signals.go), its return values are printed, failed checks make exit
// code 4.
func (a *app) runScript(cmd *cobra.Command, do func(context.Context, *luaapi.Runtime) ([]lua.LValue, error)) error {
	s, err := a.open(cmd)
	if err != nil {
		return err
	}
	defer s.close()
	// After the output: a returned iterator reads the cluster as its rows
	// are printed, and that is the run's cost too; so is writing the state
	// kept in a topic (on a client of its own), done here for that.
	defer func() {
		a.saveStateTopics(s.cfg, true)
		writeCost(a.verbose(), s.rt.Cost().Add(a.stateTopicCost(s.cfg, true)))
	}()

	// SIGINT cancels cmd.Context() (the signal watcher's start phase).
	vals, err := do(cmd.Context(), s.rt)
	if sig, _ := a.sigs.result(); sig != nil {
		return nil // run reports the signal
	}
	if err != nil {
		return err
	}
	// Nothing left to cancel: SIGINT now ends the process at once.
	a.sigs.output()
	if len(vals) > 0 {
		// Printed as it is rendered: a million rows need no more memory
		// than a block of output.
		if perr := s.rt.Print(a.st.Stdout, vals, a.flags.output); perr != nil {
			return printError(perr)
		}
	}
	if n := len(s.rt.CheckFailures()); n > 0 {
		if n == 1 {
			return exitf(ExitCheck, "1 check failed")
		}
		return exitf(ExitCheck, "%d checks failed", n)
	}
	return nil
}

// printError is the error of printing a chunk's result: an iterator's
// (a page that could not be read, rows that failed) as the chunk's own
// error would have been, with its exit code; else a script error.
func printError(err error) error {
	if re := (*luaapi.RunError)(nil); errors.As(err, &re) {
		return re
	}
	if we := (*luaapi.WriteError)(nil); errors.As(err, &we) {
		return exitf(ExitScript, "writing the result: %v", we.Err)
	}
	return exitf(ExitScript, "printing the result: %v", err)
}

// session is what a command that runs Lua needs. close releases it (the
// audit log and the embedded cluster are the app's: safety.go, embedded.go).
type session struct {
	rt          *luaapi.Runtime
	cfg         engine.Config // the default cluster
	dirs        []string      // plugin directories
	memoryLimit func()        // puts the Go runtime's memory limit back
}

func (s *session) close() {
	if s.rt != nil {
		s.rt.Close()
	}
	if s.memoryLimit != nil {
		s.memoryLimit()
	}
}

// open builds the runtime from the flags, the environment and the config
// file. On error everything it opened is closed again.
func (a *app) open(cmd *cobra.Command) (_ *session, err error) {
	s, err := a.prepare(cmd, true)
	if err != nil {
		return nil, err
	}
	if s.rt, err = a.newRuntime(cmd, s, luaapi.Options{Config: s.cfg}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// prepare opens what every runtime of a command shares: the plugin
// directories, the embedded cluster, the default cluster's config (when
// withDefault; a fleet has none) and the audit log. On error everything it
// opened is closed again.
func (a *app) prepare(cmd *cobra.Command, withDefault bool) (_ *session, err error) {
	s := &session{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	f := &a.flags
	if s.dirs, err = a.pluginDirs(); err != nil {
		return nil, err
	}
	if f.embedded || withDefault {
		if s.cfg, err = a.clusterConfig(cmd); err != nil {
			return nil, err
		}
	}
	// A fleet has no default cluster: its audit log is opened here, before
	// any member runs, so that a log that cannot be opened fails the run;
	// so is the state store, whose lock a second run must not wait for midway.
	if _, err = a.auditLog(); err != nil {
		return nil, err
	}
	if _, err = a.stateStore(); err != nil {
		return nil, err
	}
	s.memoryLimit = setMemoryLimit(int64(f.maxMemory))
	return s, nil
}

// newRuntime builds a runtime from the flags and s, for the cluster o
// names (Config, or Shared and Cluster), and loads the plugins into it. o's
// Resolve, Stdout and Stderr, when set, replace the process's.
func (a *app) newRuntime(cmd *cobra.Command, s *session, o luaapi.Options) (*luaapi.Runtime, error) {
	f := &a.flags
	if o.Resolve == nil {
		o.Resolve = a.resolve(cmd)
	}
	if o.Stdout == nil {
		o.Stdout = a.st.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = a.st.Stderr
	}
	o.Stdin = a.st.Stdin
	if o.Env == nil {
		o.Env = a.scriptEnv
	}
	o.PluginPath, o.Output = s.dirs, f.output
	o.MaxMemory, o.Runaway, o.Demo = int64(f.maxMemory), a.runaway, f.embedded || f.fixture != ""
	if o.Ask == nil {
		o.Ask = a.interruptAsk()
	}
	rt := luaapi.New(o)
	if err := loadPlugins(cmd.Context(), rt); err != nil {
		rt.Close()
		return nil, err
	}
	return rt, nil
}
