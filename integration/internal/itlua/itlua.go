// Package itlua is the Lua runtime the real-Kafka integration tests
// (integration/single, integration/three) run their scripts in: a
// luaapi.Runtime with its output captured, closed when the test ends.
package itlua

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Env is a Lua runtime for one test.
type Env struct {
	T       testing.TB
	RT      *luaapi.Runtime
	Stdout  *bytes.Buffer // what the scripts printed
	Stderr  *bytes.Buffer
	Timeout time.Duration // bounds each Run and RunErr
}

// New builds a runtime whose default client uses cfg and whose kafka.env
// (and so the password kafka.connect reads) is env; a nil env is the test
// process's environment. t.Cleanup closes it.
func New(t testing.TB, cfg engine.Config, env map[string]string, timeout time.Duration) *Env {
	t.Helper()
	e := &Env{T: t, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Timeout: timeout}
	opts := luaapi.Options{Config: cfg, Stdout: e.Stdout, Stderr: e.Stderr}
	if env != nil {
		opts.Env = func(k string) string { return env[k] }
	}
	e.RT = luaapi.New(opts)
	t.Cleanup(e.RT.Close)
	return e
}

// Run runs src, which must succeed, and returns what the chunk returned.
func (e *Env) Run(src string) []lua.LValue {
	e.T.Helper()
	vals, err := e.do(src)
	require.NoError(e.T, err, "lua:\n%s\nstderr:\n%s", src, e.Stderr)
	return vals
}

// RunErr runs src, which must fail, and returns the error.
func (e *Env) RunErr(src string) *luaapi.RunError {
	e.T.Helper()
	_, err := e.do(src)
	require.Error(e.T, err, "lua should have failed:\n%s", src)
	re, ok := err.(*luaapi.RunError)
	require.True(e.T, ok, "want *luaapi.RunError, got %T: %v", err, err)
	return re
}

func (e *Env) do(src string) ([]lua.LValue, error) {
	ctx, cancel := context.WithTimeout(context.Background(), e.Timeout)
	e.T.Cleanup(cancel) // as long as the test: what the chunk started may outlive it
	return e.RT.DoString(ctx, "test", src)
}
