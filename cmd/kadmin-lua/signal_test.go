package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// waitFor polls until cond holds; the generous bound only keeps a broken
// build from hanging the suite.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func runAsync(c *cli, args ...string) <-chan int {
	return startCLI(c, nil, args...).done
}

func waitCode(t *testing.T, done <-chan int) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(30 * time.Second):
		t.Fatal("the CLI did not stop after the signal")
		return -1
	}
}

// exitAt is a call of State.Exit: the code and what stdout held then.
type exitAt struct {
	code   int
	stdout string
}

// running is the CLI running in the background.
type running struct {
	done    chan int    // run's return value
	exits   chan exitAt // calls of State.Exit (the process would end there)
	actions chan string // what the signal watcher did with each signal
}

// startCLI runs the CLI in the background. onPhase, if not nil, is told
// each phase the signal watcher enters (in the CLI's goroutine).
func startCLI(c *cli, onPhase func(string), args ...string) *running {
	r := &running{done: make(chan int, 1), exits: make(chan exitAt, 2), actions: make(chan string, 8)}
	st := c.state(args)
	st.onPhase = onPhase
	st.onSignal = func(_ os.Signal, action string) { r.actions <- action }
	st.Exit = func(code int) {
		c.exits <- code
		r.exits <- exitAt{code: code, stdout: c.stdout.String()}
	}
	go func() { r.done <- run(st) }()
	return r
}

// action waits for the watcher to act on a signal.
func (r *running) action(t *testing.T) string {
	t.Helper()
	select {
	case a := <-r.actions:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("the signal watcher did not act on the signal")
		return ""
	}
}

func (r *running) exit(t *testing.T) exitAt {
	t.Helper()
	select {
	case e := <-r.exits:
		return e
	case <-time.After(30 * time.Second):
		t.Fatal("the CLI did not exit at once")
		return exitAt{}
	}
}

// bigResult builds n records in Lua; formatting them as a table takes a
// while (hundreds of milliseconds, more under -race).
func bigResult(n int) string {
	return fmt.Sprintf(`local t = {} for i = 1, %d do t[i] = {topic = "orders", partition = i, offset = i * 10} end`, n)
}

func TestSIGINTCancelsSleepAndExits130(t *testing.T) {
	c := newCLI(t)
	done := runAsync(c, "-e", `print("sleeping"); kafka.sleep(60000); print("woke")`)
	waitFor(t, "the script to start sleeping", func() bool { return strings.Contains(c.stdout.String(), "sleeping") })
	c.sigs <- os.Interrupt
	require.Equal(t, ExitInterrupted, waitCode(t, done))
	assert.NotContains(t, c.stdout.String(), "woke")
	assert.Equal(t, "kadmin-lua: interrupted\n", c.stderr.String())
	assert.Empty(t, c.exits, "the first interrupt cancels; it does not exit the process")
}

func TestSIGINTCancelsKafkaCallInFlight(t *testing.T) {
	// A broker that accepts connections and never answers: the call blocks
	// until the interrupt cancels it (the --timeout is far away).
	l := testnet.SilentBroker(t)
	c := newCLI(t)
	done := runAsync(c, "-b", l, "--timeout", "5m", "-e", `print("calling"); return list_topics()`)
	waitFor(t, "the call to start", func() bool { return strings.Contains(c.stdout.String(), "calling") })
	time.Sleep(50 * time.Millisecond) // let it reach the dial; cancellation works either way
	c.sigs <- os.Interrupt
	require.Equal(t, ExitInterrupted, waitCode(t, done), c.stderr.String())
	assert.Empty(t, c.exits)
}

func TestSIGTERMExitsAtOnce143(t *testing.T) {
	c := newCLI(t)
	r := startCLI(c, nil, "-e", `print("sleeping"); kafka.sleep(60000)`)
	waitFor(t, "the script to start sleeping", func() bool { return strings.Contains(c.stdout.String(), "sleeping") })
	c.sigs <- syscall.SIGTERM
	assert.Equal(t, ExitTerminated, r.exit(t).code)
	require.Equal(t, ExitTerminated, waitCode(t, r.done))
	assert.Equal(t, "kadmin-lua: terminated\n", c.stderr.String(), "said once, by the watcher")
}

// A signal while a large result is being formatted ends the process at
// once: Exit is called before the result reaches stdout. (Here Exit
// returns, so the run goes on to print it; a real process is gone:
// TestBinarySignalDuringLargeOutput.)
func TestSignalDuringOutputOfLargeResultExitsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		code int
		msg  string
	}{
		{os.Interrupt, ExitInterrupted, "interrupted"},
		{syscall.SIGTERM, ExitTerminated, "terminated"},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			c := newCLI(t)
			// The signal arrives as the output phase begins; formatting waits
			// until the watcher has acted, so the check cannot race.
			onPhase := func(p string) {
				if p != phaseOutput {
					return
				}
				c.sigs <- tc.sig
				select {
				case <-c.exits:
				case <-time.After(30 * time.Second):
				}
			}
			r := startCLI(c, onPhase, "-e", bigResult(20000)+` print("built") return t`)
			e := r.exit(t)
			assert.Equal(t, tc.code, e.code)
			assert.Equal(t, "built\n", e.stdout, "the process ends before the result is written")
			require.Equal(t, tc.code, waitCode(t, r.done))
			assert.Equal(t, "kadmin-lua: "+tc.msg+"\n", c.stderr.String())
		})
	}
}

// The first SIGINT cancels; when the work goes on regardless (here a Go
// function, the JSON encoder, that does not look at the cancellation), the
// second ends the process at once.
func TestSecondSIGINTExitsWhileCanceledWorkGoesOn(t *testing.T) {
	c := newCLI(t)
	r := startCLI(c, nil, "-e", bigResult(30000)+` print("encoding") local s = kafka.json.encode(t) print("encoded")`)
	waitFor(t, "the encoder to start", func() bool { return strings.Contains(c.stdout.String(), "encoding") })
	c.sigs <- os.Interrupt
	c.sigs <- os.Interrupt
	e := r.exit(t)
	assert.Equal(t, ExitInterrupted, e.code)
	assert.NotContains(t, e.stdout, "encoded")
	require.Equal(t, ExitInterrupted, waitCode(t, r.done))
	assert.Equal(t, "kadmin-lua: interrupted\n", c.stderr.String())
}

// startREPL runs the CLI on a "terminal" whose input the test writes.
func startREPL(t *testing.T, c *cli, onPhase func(string)) (*running, *io.PipeWriter) {
	t.Helper()
	c.terminal = true
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	c.stdin = pr
	c.env["XDG_STATE_HOME"] = t.TempDir()
	return startCLI(c, onPhase), pw
}

func TestREPLCtrlCCancelsTheChunkAndTheSessionGoesOn(t *testing.T) {
	c := newCLI(t)
	r, stdin := startREPL(t, c, nil)
	_, err := io.WriteString(stdin, "print('sleeping') kafka.sleep(60000) print('woke')\n")
	require.NoError(t, err)
	waitFor(t, "the chunk to start sleeping", func() bool { return strings.Contains(c.stdout.String(), "sleeping") })
	c.sigs <- os.Interrupt
	waitFor(t, "the chunk to be interrupted", func() bool { return strings.Contains(c.stderr.String(), "interrupted") })
	_, err = io.WriteString(stdin, "print('still here')\n")
	require.NoError(t, err)
	waitFor(t, "the next chunk", func() bool { return strings.Contains(c.stdout.String(), "still here") })
	require.NoError(t, stdin.Close()) // Ctrl-D
	assert.Equal(t, ExitOK, waitCode(t, r.done), c.stderr.String())
	assert.NotContains(t, c.stdout.String(), "woke")
	assert.Empty(t, r.exits, "Ctrl-C in the REPL cancels the chunk only")
}

func TestREPLSecondCtrlCExitsWhileTheChunkGoesOn(t *testing.T) {
	c := newCLI(t)
	r, stdin := startREPL(t, c, nil)
	_, err := io.WriteString(stdin, bigResult(30000)+` print("encoding") local s = kafka.json.encode(t) print("encoded")`+"\n")
	require.NoError(t, err)
	waitFor(t, "the encoder to start", func() bool { return strings.Contains(c.stdout.String(), "encoding") })
	c.sigs <- os.Interrupt
	c.sigs <- os.Interrupt
	e := r.exit(t)
	assert.Equal(t, ExitInterrupted, e.code)
	assert.NotContains(t, e.stdout, "encoded")
	_ = stdin.Close()
	require.Equal(t, ExitInterrupted, waitCode(t, r.done))
}

func TestREPLSignalsAtThePrompt(t *testing.T) {
	// SIGINT at the prompt has nothing to cancel and is ignored; SIGTERM
	// ends the process at once.
	var mu sync.Mutex
	prompts := 0
	c := newCLI(t)
	r, stdin := startREPL(t, c, func(p string) {
		if p != phasePrompt {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if prompts++; prompts == 1 {
			c.sigs <- os.Interrupt
		}
	})
	require.Equal(t, "ignored", r.action(t))
	_, err := io.WriteString(stdin, "print('still here')\n")
	require.NoError(t, err)
	waitFor(t, "the chunk after the ignored SIGINT", func() bool { return strings.Contains(c.stdout.String(), "still here") })
	assert.Empty(t, r.exits)
	c.sigs <- syscall.SIGTERM
	assert.Equal(t, ExitTerminated, r.exit(t).code)
	require.Equal(t, ExitTerminated, waitCode(t, r.done))
	assert.Contains(t, c.stderr.String(), "kadmin-lua: terminated\n")
}

func TestSignalWatcherPhases(t *testing.T) {
	exits := make(chan int, 1)
	var stderr syncBuffer
	canceled := make(chan string, 4)
	st := &State{Stderr: &stderr, Exit: func(code int) { exits <- code }}
	w := watchSignals(st, func() { canceled <- "root" }) // no Signals: the test calls handle
	defer w.stop()

	// The start phase: the first SIGINT cancels the run and decides its code.
	assert.False(t, w.handle(os.Interrupt))
	assert.Equal(t, "root", <-canceled)
	sig, exited := w.result()
	assert.Equal(t, os.Interrupt, sig)
	assert.False(t, exited)

	// A REPL chunk: SIGINT cancels it; the session goes on.
	w.prompt()
	assert.False(t, w.handle(os.Interrupt), "ignored at the prompt")
	done := w.chunk(func() { canceled <- "chunk" })
	assert.False(t, w.handle(os.Interrupt))
	assert.Equal(t, "chunk", <-canceled)
	done()
	assert.False(t, w.handle(os.Interrupt), "back at the prompt: ignored again")
	assert.Empty(t, exits)
	assert.Empty(t, canceled)

	// A second SIGINT in the same chunk ends the process.
	w.chunk(func() { canceled <- "chunk 2" })
	assert.False(t, w.handle(os.Interrupt))
	assert.Equal(t, "chunk 2", <-canceled)
	assert.True(t, w.handle(os.Interrupt))
	assert.Equal(t, ExitInterrupted, <-exits)
	assert.Equal(t, "root", <-canceled, "a returning Exit (tests) lets the run wind down")
	sig, exited = w.result()
	assert.Equal(t, os.Interrupt, sig)
	assert.True(t, exited)
	assert.Equal(t, "kadmin-lua: interrupted\n", stderr.String())
}

func TestSignalWatcherSIGTERMAndOutputPhase(t *testing.T) {
	for _, tc := range []struct {
		name  string
		enter func(w *signalWatcher)
		sig   os.Signal
		code  int
	}{
		{"SIGTERM at start", func(*signalWatcher) {}, syscall.SIGTERM, ExitTerminated},
		{"SIGTERM at the prompt", (*signalWatcher).prompt, syscall.SIGTERM, ExitTerminated},
		{"SIGTERM in a chunk", func(w *signalWatcher) { w.chunk(func() {}) }, syscall.SIGTERM, ExitTerminated},
		{"SIGTERM in output", (*signalWatcher).output, syscall.SIGTERM, ExitTerminated},
		{"SIGINT in output", (*signalWatcher).output, os.Interrupt, ExitInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var order []string
			st := &State{Stderr: io.Discard, Exit: func(code int) { order = append(order, fmt.Sprint("exit ", code)) }}
			w := watchSignals(st, func() { order = append(order, "cancel run") })
			w.onExit(func() { order = append(order, "restore terminal") })
			tc.enter(w)
			assert.True(t, w.handle(tc.sig), "ends the process at once")
			assert.Equal(t, []string{"restore terminal", fmt.Sprint("exit ", tc.code), "cancel run"}, order)
		})
	}
}

func TestSignalWatcherStopsListening(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	st := &State{Signals: sigs, Stderr: io.Discard, Exit: func(int) { t.Error("exited after stop") }}
	w := watchSignals(st, func() { t.Error("canceled after stop") })
	w.stop()
	w.stop()             // idempotent
	sigs <- os.Interrupt // buffered; nobody reads it
	time.Sleep(10 * time.Millisecond)
	sig, _ := w.result()
	assert.Nil(t, sig)
	assert.Len(t, sigs, 1)
}

// buildBinary builds the real kadmin-lua.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kadmin-lua")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// startBinary starts bin and returns it once its first stdout line is
// want; the rest of stdout is collected into rest.
func startBinary(t *testing.T, bin, want string, args ...string) (cmd *exec.Cmd, rest *syncBuffer, stderr *strings.Builder, copied chan struct{}) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, want+"\n", line)
	rest, copied = &syncBuffer{}, make(chan struct{})
	go func() { _, _ = io.Copy(rest, br); close(copied) }()
	return cmd, rest, stderr, copied
}

// waitBinary waits for the process and returns its exit code.
func waitBinary(t *testing.T, cmd *exec.Cmd, copied chan struct{}) int {
	t.Helper()
	waited := make(chan error, 1)
	go func() { <-copied; waited <- cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("kadmin-lua did not exit after the signal")
	}
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "want an exit error, got %v", err)
	return ee.ExitCode()
}

// TestBinarySIGINT builds the real binary and interrupts it with a real
// signal: the process exits 130 with cleanup done.
func TestBinarySIGINT(t *testing.T) {
	bin := buildBinary(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	cmd, _, stderr, copied := startBinary(t, bin, "sleeping", "--audit-log", audit, "-e", `print("sleeping"); kafka.sleep(60000)`)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, ExitInterrupted, waitBinary(t, cmd, copied))
	assert.Equal(t, "kadmin-lua: interrupted\n", stderr.String())
}

// TestBinarySignalDuringLargeOutput: the real process, told to stop while
// it formats a large result (about a second of work here), is gone at
// once and prints no part of the result.
func TestBinarySignalDuringLargeOutput(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		msg  string
	}{
		{syscall.SIGTERM, ExitTerminated, "terminated"},
		{syscall.SIGINT, ExitInterrupted, "interrupted"},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			// 300,000 rows: about 1 s to format on a laptop core. A few
			// milliseconds after "built" the chunk has returned.
			cmd, rest, stderr, copied := startBinary(t, bin, "built", "-e", bigResult(300000)+` print("built") return t`)
			time.Sleep(20 * time.Millisecond)
			start := time.Now()
			require.NoError(t, cmd.Process.Signal(tc.sig))
			code := waitBinary(t, cmd, copied)
			t.Logf("%v: exited %v after the signal", tc.sig, time.Since(start).Round(time.Millisecond))
			assert.Equal(t, tc.code, code)
			assert.Empty(t, rest.String(), "no part of the result is printed")
			assert.Equal(t, "kadmin-lua: "+tc.msg+"\n", stderr.String())
		})
	}
}
