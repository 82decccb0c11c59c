// Package three runs kadmin-lua against one real Apache Kafka 3-node KRaft
// cluster (internal/kafkatest.StartThree, PLAINTEXT): replication,
// reassignment that really moves replicas, leader elections, broker configs
// with their sources, broker loss while a script runs, and the cluster
// functions kfake cannot answer (quorum, log dirs, unregister).
//
// One cluster serves the whole package; it is started in TestMain, which
// prints its banner ("Apache Kafka 4.1.2 3-node PLAINTEXT at ...") to
// stdout. The tests are skipped only with -short or KADMIN_SKIP_KAFKA=1;
// otherwise a missing java, mvn or jar fails the run.
package three

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

var (
	cluster *kafkatest.Cluster
	binary  string // the kadmin-lua binary, built once
	skipWhy string // why the suite is skipped ("" when it runs)
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(mainRun(m))
}

func mainRun(m *testing.M) int {
	if skipWhy = kafkatest.SkipReason(); skipWhy != "" {
		fmt.Printf("integration/three: real Kafka 3-node tests skipped (%s)\n", skipWhy)
		return m.Run()
	}
	if err := kafkatest.Available(); err != nil {
		fmt.Fprintf(os.Stderr, "integration/three: real Kafka is not available (set %s=1 to skip): %v\n",
			kafkatest.EnvSkip, err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "kadmin-it-three-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)

	// Build the binary while the JVMs start.
	var buildErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		binary, buildErr = buildBinary(tmp)
	}()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	c, err := kafkatest.StartThree(ctx)
	cancel()
	wg.Wait()
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration/three: start Kafka: %v\n", err)
		return 1
	}
	defer c.Close()
	if buildErr != nil {
		fmt.Fprintf(os.Stderr, "integration/three: build kadmin-lua: %v\n", buildErr)
		return 1
	}
	cluster = c
	fmt.Printf("%s (started in %s)\n", c.Banner(), time.Since(began).Round(10*time.Millisecond))
	code := m.Run()
	if code != 0 {
		for _, id := range c.NodeIDs() {
			fmt.Fprintf(os.Stderr, "--- kafka node %d log tail ---\n%s\n", id, c.LogTail(id, 30))
		}
	}
	return code
}

// buildBinary builds cmd/kadmin-lua into dir.
func buildBinary(dir string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	out := filepath.Join(dir, "kadmin-lua")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/kadmin-lua")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, b)
	}
	return out, nil
}

// need skips t when the suite is skipped; otherwise the cluster is there
// (TestMain failed the run if it could not start).
func need(t *testing.T) *kafkatest.Cluster {
	t.Helper()
	if cluster == nil {
		t.Skipf("real Kafka tests skipped (%s)", skipWhy)
	}
	return cluster
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// env is a Lua runtime bound to the cluster.
type env struct {
	t      *testing.T
	c      *kafkatest.Cluster
	rt     *luaapi.Runtime
	stdout *bytes.Buffer
	stderr *bytes.Buffer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := need(t)
	e := &env{t: t, c: c, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	e.rt = luaapi.New(luaapi.Options{
		Config: engine.Config{Brokers: c.Brokers(), Timeout: 30 * time.Second},
		Stdout: e.stdout,
		Stderr: e.stderr,
	})
	t.Cleanup(e.rt.Close)
	return e
}

// run executes Lua and fails the test on error; it returns the first value
// the chunk returned as JSON.
func (e *env) run(src string) string {
	e.t.Helper()
	vals, err := e.rt.DoString(ctxFor(e.t, 3*time.Minute), "test", src)
	require.NoError(e.t, err, "lua:\n%s\nstderr:\n%s", src, e.stderr)
	if len(vals) == 0 {
		return "null"
	}
	s, err := e.rt.Format(vals[:1], "json")
	require.NoError(e.t, err)
	return s
}

// decode runs Lua and decodes the first returned value into v.
func (e *env) decode(src string, v any) {
	e.t.Helper()
	s := e.run(src)
	require.NoError(e.t, json.Unmarshal([]byte(s), v), "json: %s", s)
}

// runErr executes Lua that must fail and returns the error.
func (e *env) runErr(src string) *luaapi.RunError {
	e.t.Helper()
	_, err := e.rt.DoString(ctxFor(e.t, 3*time.Minute), "test", src)
	require.Error(e.t, err, "lua should have failed:\n%s", src)
	re, ok := err.(*luaapi.RunError)
	require.True(e.t, ok, "want *luaapi.RunError, got %T: %v", err, err)
	return re
}

// admin is a brand-new independent kadm client (no shared metadata cache).
func admin(t *testing.T) *kadm.Client {
	t.Helper()
	adm, err := need(t).Admin(kgo.RetryTimeout(20 * time.Second))
	require.NoError(t, err)
	t.Cleanup(adm.Close)
	return adm
}

// partState is one partition as a broker reports it right now.
type partState struct {
	Leader   int32
	Epoch    int32
	Replicas []int32
	ISR      []int32
	Err      int16
}

// rawClient is a brand-new client for one raw request, a context bounding
// it, and a func closing both.
func rawClient(t *testing.T) (*kgo.Client, context.Context, func()) {
	t.Helper()
	cl, err := need(t).Client(kgo.DialTimeout(2 * time.Second))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	return cl, ctx, func() { cancel(); cl.Close() }
}

// metadata asks the cluster directly (a raw kmsg.MetadataRequest through a
// brand-new client, so nothing comes from a cache) for topic's partitions.
func metadata(t *testing.T, topic string) (map[int32]partState, error) {
	t.Helper()
	cl, ctx, done := rawClient(t)
	defer done()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	out := map[int32]partState{}
	for _, tp := range resp.Topics {
		if tp.ErrorCode != 0 {
			return nil, fmt.Errorf("topic %s: error code %d", topic, tp.ErrorCode)
		}
		for _, p := range tp.Partitions {
			out[p.Partition] = partState{
				Leader: p.Leader, Epoch: p.LeaderEpoch, Err: p.ErrorCode,
				Replicas: sorted(p.Replicas), ISR: sorted(p.ISR),
			}
		}
	}
	return out, nil
}

func sorted(ids []int32) []int32 {
	s := slices.Clone(ids)
	slices.Sort(s)
	return s
}

// waitFor polls state every 200ms until it returns ok, logging each new
// state so a failure shows how far the cluster got.
func waitFor(t *testing.T, what string, timeout time.Duration, state func() (ok bool, desc string)) {
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

// waitISR waits until every partition of topic has its full replica set in
// sync and a leader.
func waitISR(t *testing.T, topic string, timeout time.Duration) map[int32]partState {
	t.Helper()
	var got map[int32]partState
	waitFor(t, topic+" fully in sync", timeout, func() (bool, string) {
		m, err := metadata(t, topic)
		if err != nil {
			return false, err.Error()
		}
		got = m
		ok := len(m) > 0
		for _, p := range m {
			if p.Leader < 0 || !slices.Equal(p.ISR, p.Replicas) {
				ok = false
			}
		}
		return ok, fmt.Sprint(m)
	})
	return got
}

// waitWhole waits until all three brokers are registered and topic (when
// not "") is fully in sync again: the state every test may assume.
func waitWhole(t *testing.T, topics ...string) {
	t.Helper()
	c := need(t)
	require.NoError(t, c.WaitBrokers(ctxFor(t, 2*time.Minute), c.NodeIDs()...))
	for _, tp := range topics {
		waitISR(t, tp, 2*time.Minute)
	}
}

// runBinary runs the kadmin-lua binary against the cluster with args and
// stdin; it returns stdout, stderr and the exit code. ctx bounds it.
func runBinary(ctx context.Context, t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	c := need(t)
	cmd := exec.CommandContext(ctx, binary, append([]string{"-b", c.Bootstrap()}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "run kadmin-lua: %v", err)
		code = ee.ExitCode()
	}
	require.NoError(t, ctx.Err(), "kadmin-lua did not finish in time; stderr:\n%s", errb.String())
	return out.String(), errb.String(), code
}

// topicNames lists the cluster's topics through a brand-new client.
func topicNames(t *testing.T) []string {
	t.Helper()
	td, err := admin(t).ListTopics(ctxFor(t, time.Minute))
	require.NoError(t, err)
	return td.Names()
}
