package repl

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// step is one answer of the fake reader: a line, or an error (ErrInterrupt,
// io.EOF); before runs first, in the REPL's goroutine.
type step struct {
	line   string
	err    error
	before func()
}

func line(s string) step { return step{line: s} }

// fakeReader plays steps and records prompts and saved history.
type fakeReader struct {
	mu      sync.Mutex
	steps   []step
	prompt  string
	prompts []string
	history []string
	closed  bool
}

func (f *fakeReader) Readline() (string, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, f.prompt)
	if len(f.steps) == 0 {
		f.mu.Unlock()
		return "", io.EOF
	}
	s := f.steps[0]
	f.steps = f.steps[1:]
	f.mu.Unlock()
	if s.before != nil {
		s.before()
	}
	return s.line, s.err
}

func (f *fakeReader) SetPrompt(p string) { f.mu.Lock(); f.prompt = p; f.mu.Unlock() }

func (f *fakeReader) SaveHistory(l string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.history = append(f.history, l)
	return nil
}

func (f *fakeReader) Close() error { f.closed = true; return nil }

// env is a 3-broker kfake cluster, a runtime bound to it writing into the
// same buffers as the REPL, and an independent kadm client.
type env struct {
	t       *testing.T
	cluster *kfake.Cluster
	rt      *luaapi.Runtime
	adm     *kadm.Client
	stdout  *bytes.Buffer
	stderr  *bytes.Buffer
}

func newEnv(t *testing.T) *env { return newEnvWith(t, nil) }

// newEnvWith is newEnv with the runtime's options changed by edit.
func newEnvWith(t *testing.T, edit func(*luaapi.Options)) *env {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	e := &env{t: t, cluster: c, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	o := luaapi.Options{
		Config: engine.Config{Brokers: c.ListenAddrs(), Timeout: 10 * time.Second},
		Stdout: e.stdout, Stderr: e.stderr,
	}
	if edit != nil {
		edit(&o)
	}
	e.rt = luaapi.New(o)
	t.Cleanup(e.rt.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	e.adm = kadm.NewClient(cl)
	return e
}

// kfakePrompt names a kfake cluster by its id, as the REPL does without
// a profile.
const kfakePrompt = "kadmin-lua kfake> "

// run runs a REPL session over steps and returns the fake reader. The
// session waits as long as it takes for the cluster id, so the prompts
// are the same on a loaded machine.
func (e *env) run(o Options, steps ...step) *fakeReader {
	e.t.Helper()
	f := &fakeReader{steps: steps}
	if o.NamesWait == 0 {
		o.NamesWait = 10 * time.Second
	}
	o.Reader, o.Stdout, o.Stderr = f, e.stdout, e.stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(e.t, Run(ctx, e.rt, o))
	return f
}

func (e *env) createTopic(name string, partitions int32) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := e.adm.CreateTopic(ctx, partitions, 1, nil, name)
	require.NoError(e.t, err)
}

func (e *env) topicExists(name string) bool {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A fresh client each time: kgo caches metadata for a few seconds.
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...))
	require.NoError(e.t, err)
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(ctx)
	require.NoError(e.t, err)
	return td.Has(name)
}

func TestBannerAndCtrlDReturnsNil(t *testing.T) {
	e := newEnv(t)
	f := e.run(Options{Version: "1.2.3"}) // no steps: the first read is Ctrl-D
	out := e.stdout.String()
	assert.Contains(t, out, "kadmin-lua 1.2.3")
	assert.Contains(t, out, e.cluster.ListenAddrs()[0])
	assert.Contains(t, out, "help() lists functions")
	assert.Contains(t, out, "Ctrl-D exits")
	assert.Equal(t, []string{kfakePrompt}, f.prompts)
	assert.False(t, f.closed, "a reader passed in belongs to the caller")
}

func TestCtrlDInsideUnfinishedChunkExits(t *testing.T) {
	e := newEnv(t)
	f := e.run(Options{}, line("for i = 1, 2 do"), step{err: io.EOF}, line("never read"))
	assert.Equal(t, []string{kfakePrompt, "...> "}, f.prompts)
	assert.Empty(t, e.stderr.String())
}

func TestListTopicsPrintsTable(t *testing.T) {
	e := newEnv(t)
	e.createTopic("orders", 6)
	e.createTopic("payments", 3)
	e.run(Options{}, line("list_topics()"))
	lines := strings.Split(strings.TrimSpace(e.stdout.String()), "\n")
	var table []string
	for i, l := range lines {
		if strings.HasPrefix(l, "NAME") {
			table = lines[i:]
			break
		}
	}
	require.Len(t, table, 3, "header and two rows:\n%s", e.stdout)
	assert.Regexp(t, `^NAME\s+ID\s+PARTITIONS\s+REPLICATION_FACTOR\s+INTERNAL$`, table[0])
	assert.Regexp(t, `^orders\s+\S+\s+6\s+1\s+false$`, table[1])
	assert.Regexp(t, `^payments\s+\S+\s+3\s+1\s+false$`, table[2])
	// Aligned: the partitions column starts at the same offset on every line.
	col := strings.Index(table[0], "PARTITIONS")
	assert.Equal(t, "6", table[1][col:col+1])
	assert.Equal(t, "3", table[2][col:col+1])
	assert.Empty(t, e.stderr.String())
}

func TestJSONOutputAndLuaValues(t *testing.T) {
	e := newEnv(t)
	e.run(Options{Output: "json"}, line("{a = 1}"))
	assert.JSONEq(t, `{"a": 1}`, e.stdout.String()[strings.Index(e.stdout.String(), "{"):])

	e2 := newEnv(t)
	e2.run(Options{}, line("{name = 'x', n = {1, 2}}"), line("=1 + 1"), line("x = 5"), line("x"))
	out := e2.stdout.String()
	assert.Contains(t, out, "{\n  n = {1, 2},\n  name = \"x\",\n}")
	assert.Contains(t, out, "\n2\n5\n")
}

func TestContinuation(t *testing.T) {
	e := newEnv(t)
	f := e.run(Options{}, line("for i=1,2 do"), line("print(i)"), line("end"), line("print('after')"))
	assert.True(t, strings.HasSuffix(e.stdout.String(), "1\n2\nafter\n"), e.stdout.String())
	assert.Equal(t, []string{kfakePrompt, "...> ", "...> ", kfakePrompt, kfakePrompt}, f.prompts)
	assert.Equal(t, []string{"for i=1,2 do", "print(i)", "end", "print('after')"}, f.history)
	assert.Empty(t, e.stderr.String())
}

func TestErrorKeepsSession(t *testing.T) {
	e := newEnv(t)
	e.run(Options{},
		line(`error("boom")`),
		line(`describe_topics{"no-such-topic"}`),
		line(`x = = 1`),
		line(`1 + 1`))
	errs := e.stderr.String()
	assert.Contains(t, errs, "boom")
	assert.Contains(t, errs, "describe_topics: no-such-topic: UNKNOWN_TOPIC_OR_PARTITION")
	assert.Contains(t, errs, "stdin:1:")
	assert.True(t, strings.HasSuffix(e.stdout.String(), "\n2\n"), e.stdout.String())
}

func TestCtrlCAtPromptClearsChunk(t *testing.T) {
	e := newEnv(t)
	f := e.run(Options{}, line("for i=1,2 do"), step{err: ErrInterrupt}, line("print('fresh')"))
	assert.True(t, strings.HasSuffix(e.stdout.String(), "fresh\n"), e.stdout.String())
	assert.Equal(t, []string{kfakePrompt, "...> ", kfakePrompt, kfakePrompt}, f.prompts)
	assert.Empty(t, e.stderr.String())
	assert.Equal(t, []string{"print('fresh')"}, f.history)
}

func TestCtrlCCancelsRunningCallOnly(t *testing.T) {
	e := newEnv(t)
	// The CLI's signal watcher cancels the chunk it was given on Ctrl-C;
	// here Ctrl-C comes 50 ms into the first chunk, kafka.sleep(60000).
	var mu sync.Mutex
	var chunks, printedAtDone []string
	interruptible := func(cancel func()) func() {
		mu.Lock()
		chunks = append(chunks, "begin")
		first := len(chunks) == 1
		mu.Unlock()
		if first {
			time.AfterFunc(50*time.Millisecond, cancel)
		}
		return func() {
			mu.Lock()
			defer mu.Unlock()
			chunks = append(chunks, "done")
			printedAtDone = append(printedAtDone, e.stdout.String())
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.run(Options{Interruptible: interruptible},
			line("kafka.sleep(60000)"),
			line("print('next line ran')"),
			line("kafka.sleep(1)"),
			line("'still here'"))
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Ctrl-C did not cancel kafka.sleep(60000)")
	}
	assert.Equal(t, "\ninterrupted\n", e.stderr.String())
	assert.True(t, strings.HasSuffix(e.stdout.String(), "next line ran\nstill here\n"), e.stdout.String())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"begin", "done", "begin", "done", "begin", "done", "begin", "done"}, chunks,
		"each chunk is interruptible from its start to the end of its output")
	assert.True(t, strings.HasSuffix(printedAtDone[3], "still here\n"), "done comes after the values are printed")
}

func TestHelpAtThePrompt(t *testing.T) {
	e := newEnv(t)
	e.run(Options{}, line("help(create_topics)"), line(`help("list_topics")`), line("help()"))
	out := e.stdout.String()
	assert.Contains(t, out, "create_topics(")
	assert.Contains(t, out, "list_topics(")
	assert.Contains(t, out, "kadmin-lua functions")
	assert.Empty(t, e.stderr.String())
}

func TestDestructiveCallAsksFirst(t *testing.T) {
	e := newEnv(t)
	e.createTopic("doomed", 1)
	addr := strings.Join(e.cluster.ListenAddrs(), ",")

	f := e.run(Options{}, line(`delete_topics{"doomed"}`), line("n"))
	assert.Contains(t, f.prompts, `delete_topics(["doomed"]) on cluster kfake (`+addr+`)? [y/N] `)
	assert.Contains(t, e.stderr.String(), "not confirmed; nothing was changed")
	assert.True(t, e.topicExists("doomed"), "declined: the topic must still exist")
	assert.Equal(t, []string{`delete_topics{"doomed"}`}, f.history, "the answer is not history")

	f = e.run(Options{}, line(`delete_topics{"doomed"}`), step{err: ErrInterrupt})
	assert.True(t, e.topicExists("doomed"), "Ctrl-C at the question declines")

	f = e.run(Options{}, line(`delete_topics{"doomed"}`), line("y"))
	assert.Contains(t, f.prompts, `delete_topics(["doomed"]) on cluster kfake (`+addr+`)? [y/N] `)
	assert.False(t, e.topicExists("doomed"), "confirmed: the topic is deleted\n%s", e.stderr)
}

func TestYesDoesNotAsk(t *testing.T) {
	e := newEnv(t)
	e.createTopic("doomed", 1)
	f := e.run(Options{Yes: true}, line(`delete_topics{"doomed"}`))
	assert.Equal(t, []string{kfakePrompt, kfakePrompt}, f.prompts)
	assert.False(t, e.topicExists("doomed"))
	assert.Nil(t, e.rt.Options().Confirm, "Run restores the runtime's confirmation")
}

func TestHistoryLeavesOutSecrets(t *testing.T) {
	e := newEnv(t)
	f := e.run(Options{},
		line("list_topics()"),
		line(`c = kafka.connect{brokers = "x:9092", sasl_mechanism = "PLAIN", sasl_username = "u", password = "hunter2"}`),
		line(`t = {`),
		line(`  Token = "abc"`),
		line(`}`),
		line(`kafka.env("KADMIN_SASL_PASSWORD")`),
		line(`print("ok")`))
	assert.Equal(t, []string{"list_topics()", `print("ok")`}, f.history)
}

func TestKeepInHistory(t *testing.T) {
	for chunk, keep := range map[string]bool{
		"list_topics()":                           true,
		"lag('billing')":                          true,
		"":                                        false,
		"   ":                                     false,
		`x = "PassWord"`:                          false,
		`kafka.connect{brokers="b", pass="p"}`:    false,
		`kafka.connect{brokers="b", pwd = "p"}`:   false,
		`create_topics{"tokens"}`:                 false, // over-cautious, on purpose
		`alter_user_scram_credentials{}`:          false,
		`kafka.connect{brokers="b"}`:              true,
		`s = "my-secret"`:                         false,
		`h = HMAC`:                                false,
		`p = "passphrase"`:                        false,
		`kafka.connect{sasl_mechanism="PLAIN"}`:   false,
		`describe_topics{"compass"}`:              true,
		`create_topics{{name="a", partitions=3}}`: true,
	} {
		assert.Equal(t, keep, keepInHistory(chunk), chunk)
	}
}

func TestHistoryPath(t *testing.T) {
	home := func() (string, error) { return "/home/op", nil }
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	assert.Equal(t, "/xdg/state/kadmin-lua/history",
		historyPath(env(map[string]string{"XDG_STATE_HOME": "/xdg/state"}), home))
	assert.Equal(t, "/home/op/.local/state/kadmin-lua/history", historyPath(env(nil), home))
	assert.Equal(t, "/home/op/.local/state/kadmin-lua/history",
		historyPath(env(map[string]string{"XDG_STATE_HOME": "relative"}), home), "relative XDG paths are ignored")
	assert.Empty(t, historyPath(env(nil), func() (string, error) { return "", os.ErrNotExist }))

	t.Setenv("XDG_STATE_HOME", "/tmp/st")
	assert.Equal(t, "/tmp/st/kadmin-lua/history", DefaultHistoryPath())
}

// TestReadlineReaderHistoryFile drives the real readline reader (stdin is
// not a terminal here) and checks what reaches the history file.
func TestReadlineReaderHistoryFile(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "state", "kadmin-lua", "history")
	in := strings.Join([]string{
		"1 + 1",
		`c = kafka.connect{brokers = "x:9092", password = "hunter2"}`,
		"for i = 1, 2 do",
		"print(i * 10)",
		"end",
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, Run(ctx, e.rt, Options{
		Stdin: strings.NewReader(in), Stdout: e.stdout, Stderr: e.stderr, HistoryPath: path,
	}))
	assert.Contains(t, e.stdout.String(), "2\n")
	assert.Contains(t, e.stdout.String(), "10\n20\n")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "1 + 1\nfor i = 1, 2 do\nprint(i * 10)\nend\n", string(data))
	assert.NotContains(t, string(data), "hunter2")
	st, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())
}

func TestCanceledContextEndsSession(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeReader{steps: []step{line("x = 1"), {line: "x = 2", before: cancel}, line("x = 3")}}
	err := Run(ctx, e.rt, Options{Reader: f, Stdout: e.stdout, Stderr: e.stderr})
	require.ErrorIs(t, err, context.Canceled)
	assert.Len(t, f.steps, 1, "the session stops reading once the context is done")
}

// Errors quote names from the cluster; the REPL prints them escaped, so a
// topic or group name cannot drive the operator's terminal.
func TestErrorsAreEscaped(t *testing.T) {
	e := newEnv(t)
	e.run(Options{}, line(`describe_topics{"\27]0;pwned\7\27[31mnope"}`), line(`error("bell\7")`))
	out := e.stderr.String()
	assert.Contains(t, out, `\x1b]0;pwned\a\x1b[31mnope`)
	assert.Contains(t, out, `bell\a`)
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "\a")
}

// An iterator typed at the prompt prints its rows, as the table form does,
// though its pages are read after the line's chunk ended (under the
// memory limit, whose context ends with the chunk).
func TestIteratorAtThePromptPrintsItsRows(t *testing.T) {
	e := newEnvWith(t, func(o *luaapi.Options) { o.MaxMemory = 1 << 30 })
	e.createTopic("orders", 2)
	e.createTopic("payments", 1)
	e.run(Options{Output: "ndjson"}, line("describe_topics(nil, {iterate = true})"))
	lines := strings.Split(strings.TrimSpace(e.stdout.String()), "\n")
	require.GreaterOrEqual(t, len(lines), 2, e.stdout.String())
	assert.Contains(t, lines[len(lines)-2], `"name":"orders"`)
	assert.Contains(t, lines[len(lines)-1], `"name":"payments"`)
	assert.Empty(t, e.stderr.String())
}
