package single

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// cluster is the one SASL node every test of the package shares; bin is
// the kadmin-lua binary built for the package. Both are unset when the
// real-Kafka tests are skipped.
var (
	cluster *kafkatest.Cluster
	bin     string
)

var mechanisms = []string{kafkatest.MechPlain, kafkatest.MechScram256, kafkatest.MechScram512}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if r := kafkatest.SkipReason(); r != "" {
		fmt.Printf("integration/single: real Kafka tests skipped (%s)\n", r)
		return m.Run()
	}
	if err := kafkatest.Available(); err != nil {
		fmt.Fprintf(os.Stderr, "integration/single: real Kafka is not available (set %s=1 to skip): %v\n", kafkatest.EnvSkip, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "kadmin-it-single-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)

	// Build the binary while the broker starts.
	var buildErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		bin = filepath.Join(dir, "kadmin-lua")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/kadmin-lua/kadmin-lua/cmd/kadmin-lua").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build kadmin-lua: %v\n%s", err, out)
		}
	}()
	began := time.Now()
	c, err := kafkatest.StartSingle(context.Background())
	wg.Wait()
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration/single: start Kafka: %v\n", err)
		return 1
	}
	cluster = c
	defer c.Close()
	if buildErr != nil {
		fmt.Fprintln(os.Stderr, buildErr)
		return 1
	}
	fmt.Printf("%s (started in %s)\n", c.Banner(), time.Since(began).Round(10*time.Millisecond))
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- kafka node 1 log tail (%s) ---\n%s\n", c.Dir, c.LogTail(1, 40))
	}
	return code
}

// need skips t when the real-Kafka tests are skipped (TestMain fails the
// package when they must run and cannot).
func need(t *testing.T) {
	t.Helper()
	if cluster == nil {
		t.Skipf("real Kafka tests skipped (%s)", kafkatest.SkipReason())
	}
}

var seq atomic.Int64

// unique returns a name no other test uses.
func unique(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e6, seq.Add(1))
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// admin is an independent kadm client (admin over PLAIN) for checking what
// really happened.
func admin(t *testing.T) *kadm.Client {
	t.Helper()
	adm, err := cluster.Admin(kgo.RetryTimeout(20 * time.Second))
	require.NoError(t, err)
	t.Cleanup(adm.Close)
	return adm
}

// topics lists topics through a brand-new client (no metadata cache).
func topics(t *testing.T) kadm.TopicDetails {
	t.Helper()
	adm, err := cluster.Admin()
	require.NoError(t, err)
	defer adm.Close()
	td, err := adm.ListTopics(ctxT(t, 20*time.Second))
	require.NoError(t, err)
	return td
}

// lrt is a Lua runtime logged in to the cluster.
type lrt struct {
	t      *testing.T
	rt     *luaapi.Runtime
	stdout *bytes.Buffer
	stderr *bytes.Buffer
}

// runtimeAs builds a runtime whose default client logs in as user with
// mech. KADMIN_SASL_PASSWORD in its environment is password too, for
// kafka.connect.
func runtimeAs(t *testing.T, mech, user, password string) *lrt {
	t.Helper()
	return runtimeWith(t, engine.Config{
		Brokers: cluster.Brokers(),
		Timeout: 20 * time.Second,
		SASL:    &engine.SASLConfig{Mechanism: mech, Username: user, Password: engine.Secret(password)},
	}, map[string]string{engine.PasswordEnv: password})
}

// runtimeWith builds a runtime for cfg whose kafka.env (and so the password
// kafka.connect reads) is env.
func runtimeWith(t *testing.T, cfg engine.Config, env map[string]string) *lrt {
	t.Helper()
	r := &lrt{t: t, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	r.rt = luaapi.New(luaapi.Options{
		Config: cfg,
		Stdout: r.stdout,
		Stderr: r.stderr,
		Env:    func(k string) string { return env[k] },
	})
	t.Cleanup(r.rt.Close)
	return r
}

func adminRT(t *testing.T, mech string) *lrt {
	return runtimeAs(t, mech, kafkatest.AdminUser, kafkatest.AdminPassword)
}

// run runs Lua that must succeed.
func (r *lrt) run(src string) {
	r.t.Helper()
	_, err := r.rt.DoString(ctxT(r.t, time.Minute), "test", src)
	require.NoError(r.t, err, "lua:\n%s\nstderr: %s", src, r.stderr)
}

// json runs Lua whose chunk returns one value and decodes it (through
// kafka.json.encode) into out.
func (r *lrt) json(src string, out any) {
	r.t.Helper()
	vals, err := r.rt.DoString(ctxT(r.t, time.Minute), "test",
		"return kafka.json.encode((function() "+src+" end)())")
	require.NoError(r.t, err, "lua:\n%s\nstderr: %s", src, r.stderr)
	require.Len(r.t, vals, 1)
	require.NoError(r.t, json.Unmarshal([]byte(vals[0].String()), out), "json: %s", vals[0].String())
}

// runErr runs Lua that must fail and returns the error.
func (r *lrt) runErr(src string) *luaapi.RunError {
	r.t.Helper()
	_, err := r.rt.DoString(ctxT(r.t, time.Minute), "test", src)
	require.Error(r.t, err, "lua should have failed:\n%s", src)
	re, ok := err.(*luaapi.RunError)
	require.True(r.t, ok, "want *luaapi.RunError, got %T: %v", err, err)
	return re
}

// binResult is one run of the kadmin-lua binary.
type binResult struct {
	code           int
	stdout, stderr string
}

// runBin runs the built binary against the cluster as user with mech;
// password goes in KADMIN_SASL_PASSWORD. args follow the connection flags.
func runBin(t *testing.T, mech, user, password string, args ...string) binResult {
	t.Helper()
	full := append([]string{"-b", cluster.Bootstrap(), "--sasl-mechanism", mech, "--sasl-username", user,
		"--timeout", "20s"}, args...)
	ctx := ctxT(t, 2*time.Minute)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = append(os.Environ(), engine.PasswordEnv+"="+password, "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	res := binResult{stdout: so.String(), stderr: se.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "run %v: %v", full, err)
		res.code = ee.ExitCode()
	}
	t.Logf("kadmin-lua %s -> exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	return res
}

// produce writes n records (values "v0".."v<n-1>") to each partition of topic.
func produce(t *testing.T, topic string, partitions int32, n int) {
	t.Helper()
	cl, err := cluster.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
	require.NoError(t, err)
	defer cl.Close()
	var recs []*kgo.Record
	for p := int32(0); p < partitions; p++ {
		for i := 0; i < n; i++ {
			recs = append(recs, &kgo.Record{Partition: p, Value: []byte(fmt.Sprintf("v%d", i))})
		}
	}
	require.NoError(t, cl.ProduceSync(ctxT(t, time.Minute), recs...).FirstErr())
}
