package kafkatest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// RunSuite is the body of a TestMain whose package shares one cluster
// among all its tests:
//
//	func TestMain(m *testing.M) {
//		os.Exit(kafkatest.RunSuite(m, "integration/single", kafkatest.StartSingle,
//			func(c *kafkatest.Cluster, bin string) { cluster, binary = c, bin }))
//	}
//
// When SkipReason says so it runs the tests without a cluster (they skip
// themselves). Otherwise it fails (returns 1) unless Available, starts the
// cluster with start while BuildBinary builds the kadmin-lua binary into a
// temporary directory, hands both to setup, prints the banner, runs the
// tests, prints every node's log tail if they failed, and closes the
// cluster and removes the binary. name prefixes its messages.
func RunSuite(m *testing.M, name string, start func(context.Context) (*Cluster, error), setup func(c *Cluster, binary string)) int {
	flag.Parse() // for testing.Short in SkipReason
	if r := SkipReason(); r != "" {
		fmt.Printf("%s: real Kafka tests skipped (%s)\n", name, r)
		return m.Run()
	}
	if err := Available(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: real Kafka is not available (set %s=1 to skip): %v\n", name, EnvSkip, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "kadmin-it-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	defer os.RemoveAll(dir)

	// Build the binary while the JVMs start.
	var binary string
	var buildErr error
	built := make(chan struct{})
	go func() {
		defer close(built)
		binary, buildErr = BuildBinary(dir)
	}()
	began := time.Now()
	c, err := start(context.Background())
	<-built
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: start Kafka: %v\n", name, err)
		return 1
	}
	defer c.Close()
	if buildErr != nil {
		fmt.Fprintf(os.Stderr, "%s: build kadmin-lua: %v\n", name, buildErr)
		return 1
	}
	setup(c, binary)
	fmt.Printf("%s (started in %s)\n", c.Banner(), time.Since(began).Round(10*time.Millisecond))
	code := m.Run()
	if code != 0 {
		for _, id := range c.NodeIDs() {
			fmt.Fprintf(os.Stderr, "--- kafka node %d log tail (%s) ---\n%s\n", id, c.Dir, c.LogTail(id, 40))
		}
	}
	return code
}

// BuildBinary builds the kadmin-lua command (the module's ./cmd/kadmin-lua,
// with `go build`) into dir and returns the binary's path.
func BuildBinary(dir string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	out := filepath.Join(dir, "kadmin-lua")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/kadmin-lua")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..") // the module root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build kadmin-lua: %v\n%s", err, b)
	}
	return out, nil
}

// BinResult is one run of a binary: what it wrote and its exit code.
type BinResult struct {
	Code           int
	Stdout, Stderr string
}

// RunBinary runs binary with args until it exits, with stdin as its
// standard input and env (KEY=value entries) added to the test process's
// environment; HOME is a fresh t.TempDir(), so no user configuration is
// read. ctx bounds the run. It logs the run and fails t if the binary could
// not be run or ctx ended first; a non-zero exit is only reported.
func RunBinary(ctx context.Context, t testing.TB, binary string, env []string, stdin string, args ...string) BinResult {
	t.Helper()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append(os.Environ(), env...), "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	res := BinResult{Stdout: so.String(), Stderr: se.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %v did not finish in time; stderr:\n%s", filepath.Base(binary), args, res.Stderr)
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s %v: %v", filepath.Base(binary), args, err)
	}
	t.Logf("%s %s -> exit %d\nstdout: %s\nstderr: %s", filepath.Base(binary), strings.Join(args, " "), res.Code, res.Stdout, res.Stderr)
	return res
}

// WaitFor polls state every 200ms until it returns ok, logging each new
// description so a failure shows how far the cluster got; it fails t if ok
// does not come within timeout.
func WaitFor(t testing.TB, what string, timeout time.Duration, state func() (ok bool, desc string)) {
	t.Helper()
	began := time.Now()
	last := ""
	for {
		ok, desc := state()
		if desc != last {
			t.Logf("%s: %s (after %s)", what, desc, time.Since(began).Round(10*time.Millisecond))
			last = desc
		}
		if ok {
			return
		}
		if time.Since(began) > timeout {
			t.Fatalf("%s: not reached in %s; last state: %s", what, timeout, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// AdminT is Admin for one test: a brand-new kadm client (so nothing comes
// from another client's metadata cache), closed in t.Cleanup; t fails if
// it cannot be made.
func (c *Cluster) AdminT(t testing.TB, opts ...kgo.Opt) *kadm.Client {
	t.Helper()
	return c.AdminAsT(t, MechPlain, AdminUser, AdminPassword, opts...)
}

// AdminAsT is AdminAs for one test, like AdminT.
func (c *Cluster) AdminAsT(t testing.TB, mech, user, password string, opts ...kgo.Opt) *kadm.Client {
	t.Helper()
	adm, err := c.AdminAs(mech, user, password, opts...)
	if err != nil {
		t.Fatalf("kafkatest: admin client: %v", err)
	}
	t.Cleanup(adm.Close)
	return adm
}

// SyncBuffer is a bytes.Buffer safe to read while a process (or another
// goroutine) writes to it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
