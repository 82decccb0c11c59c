package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	done := make(chan int, 1)
	st := c.state(args)
	go func() { done <- run(st) }()
	return done
}

func waitCode(t *testing.T, done <-chan int) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("the CLI did not stop after the interrupt")
		return -1
	}
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
	l, err := netListen(t)
	require.NoError(t, err)
	c := newCLI(t)
	done := runAsync(c, "-b", l, "--timeout", "5m", "-e", `print("calling"); return list_topics()`)
	waitFor(t, "the call to start", func() bool { return strings.Contains(c.stdout.String(), "calling") })
	time.Sleep(50 * time.Millisecond) // let it reach the dial; cancellation works either way
	c.sigs <- os.Interrupt
	require.Equal(t, ExitInterrupted, waitCode(t, done), c.stderr.String())
}

func TestSIGTERMExits143(t *testing.T) {
	c := newCLI(t)
	done := runAsync(c, "-e", `print("sleeping"); kafka.sleep(60000)`)
	waitFor(t, "the script to start sleeping", func() bool { return strings.Contains(c.stdout.String(), "sleeping") })
	c.sigs <- syscall.SIGTERM
	require.Equal(t, ExitTerminated, waitCode(t, done))
}

func TestSecondInterruptExitsAtOnce(t *testing.T) {
	sigs := make(chan os.Signal)
	canceled := make(chan struct{})
	exits := make(chan int, 1)
	w := watchInterrupts(sigs, func() { close(canceled) }, func(code int) { exits <- code })
	defer w.stop()
	sigs <- os.Interrupt
	<-canceled
	assert.Equal(t, os.Interrupt, w.signal())
	assert.Empty(t, exits, "the first interrupt only cancels")
	sigs <- os.Interrupt // the run is stuck: the watcher is still listening
	assert.Equal(t, ExitInterrupted, <-exits)
}

func TestWatcherStopsListening(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	w := watchInterrupts(sigs, func() { t.Error("canceled after stop") }, func(int) { t.Error("exited after stop") })
	w.stop()
	w.stop() // idempotent
	time.Sleep(10 * time.Millisecond)
	sigs <- os.Interrupt // buffered; nobody reads it
	time.Sleep(10 * time.Millisecond)
	assert.Nil(t, w.signal())
	assert.Len(t, sigs, 1)
}

// TestBinarySIGINT builds the real binary and interrupts it with a real
// signal: the process exits 130 with cleanup done.
func TestBinarySIGINT(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kadmin-lua")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	cmd := exec.Command(bin, "--audit-log", audit, "-e", `print("sleeping"); kafka.sleep(60000)`)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "sleeping\n", line)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	_, _ = io.Copy(io.Discard, stdout)

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("kadmin-lua did not exit after SIGINT")
	}
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "want an exit error, got %v", err)
	assert.Equal(t, ExitInterrupted, ee.ExitCode())
	assert.Equal(t, "kadmin-lua: interrupted\n", stderr.String())
}
