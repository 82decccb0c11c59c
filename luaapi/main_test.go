package luaapi

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// env is a 3-broker kfake cluster, a runtime bound to it, and an
// independent kadm client for checking what really happened.
type env struct {
	t       *testing.T
	cluster *kfake.Cluster
	rt      *Runtime
	adm     *kadm.Client
	stdout  *bytes.Buffer
	stderr  *bytes.Buffer
	sent    *sentCounter // requests the runtime's clients sent (auditedEnv)
}

func newEnv(t *testing.T, opts ...kfake.Opt) *env {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return newEnvOn(t, c, Options{})
}

func newEnvOn(t *testing.T, c *kfake.Cluster, o Options) *env {
	t.Helper()
	e := &env{t: t, cluster: c, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	o.Config.Brokers = c.ListenAddrs()
	if o.Config.Timeout == 0 {
		o.Config.Timeout = 10 * time.Second
	}
	o.Stdout, o.Stderr = e.stdout, e.stderr
	e.rt = New(o)
	t.Cleanup(e.rt.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	e.adm = kadm.NewClient(cl)
	return e
}

// run executes Lua and fails the test on error; it returns the chunk's
// first result.
func (e *env) run(src string) lua.LValue {
	e.t.Helper()
	vals, err := e.rt.DoString(context.Background(), "test", src)
	require.NoError(e.t, err, "lua:\n%s", src)
	if len(vals) == 0 {
		return lua.LNil
	}
	return vals[0]
}

// runErr executes Lua that must fail and returns the error.
func (e *env) runErr(src string) *RunError {
	e.t.Helper()
	_, err := e.rt.DoString(context.Background(), "test", src)
	require.Error(e.t, err, "lua should have failed:\n%s", src)
	re, ok := err.(*RunError)
	require.True(e.t, ok, "want *RunError, got %T", err)
	return re
}

// json runs Lua returning one value and gives it as JSON.
func (e *env) json(src string) string {
	e.t.Helper()
	s, err := output.EncodeJSON(e.run(src), e.rt.null(), "")
	require.NoError(e.t, err)
	return s
}

func (e *env) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

// topics lists topics through a brand-new independent client: a kgo client
// that listed before can answer from a merge with its metadata cache and
// still show a deleted topic (see engine/metadata.go), so e.adm is not used
// for topic listings.
func (e *env) topics() kadm.TopicDetails {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...))
	require.NoError(e.t, err)
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(e.ctx())
	require.NoError(e.t, err)
	return td
}

func (e *env) engine() *engine.Client {
	cl, err := e.rt.dflt.get()
	require.NoError(e.t, err)
	return cl
}

func lTrue() lua.LValue { return lua.LTrue }

// testAudit opens an audit log in a temp dir, closed at the test's end.
func testAudit(t *testing.T) (*auditlog.Log, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := auditlog.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = audit.Close() })
	return audit, path
}
