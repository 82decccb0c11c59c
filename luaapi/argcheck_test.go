package luaapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// These tests hold the argument rules over every declared function at
// once: a call the declaration refuses sends no request, writes no audit
// line, changes nothing, and its error names the function and the argument.

// countCallRequests counts the requests the cluster handles from now on
// that a call sends: every one but Metadata and ApiVersions, which a
// client also sends by itself in the background (kgo refreshes metadata
// after an earlier call's error, and opens a connection with ApiVersions),
// so that a long-lived runtime (the fuzzer's) cannot charge them to the
// call that happened to be running.
func countCallRequests(c *kfake.Cluster) *atomic.Int64 {
	var n atomic.Int64
	c.Control(func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		switch r.Key() {
		case kmsg.Metadata.Int16(), kmsg.ApiVersions.Int16():
		default:
			n.Add(1)
		}
		return nil, nil, false
	})
	return &n
}

// countRequests counts every request the cluster handles from now on.
func countRequests(c *kfake.Cluster) *atomic.Int64 {
	var n atomic.Int64
	c.Control(func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.Add(1)
		return nil, nil, false
	})
	return &n
}

// adminFuncs are the declared admin functions.
func adminFuncs() []*Func {
	var out []*Func
	for _, f := range Funcs() {
		if f.IsAdmin() && f.declared() {
			out = append(out, f)
		}
	}
	return out
}

// sampleArgs is a valid argument list of f built from its declaration, as
// Lua source: every positional argument, then the options table.
func sampleArgs(f *Func) []string {
	var out []string
	for _, p := range f.Params {
		out = append(out, p.Type.sample())
	}
	if f.hasOptionsTable() {
		out = append(out, f.optionsRecord().sample())
	}
	return out
}

// luaValues evaluates Lua expressions in a runtime with no cluster.
func luaValues(t *testing.T, rt *Runtime, exprs []string) []lua.LValue {
	t.Helper()
	if len(exprs) == 0 {
		return nil
	}
	vals, err := rt.DoString(context.Background(), "sample", "return "+strings.Join(exprs, ", "))
	require.NoError(t, err, "%v", exprs)
	require.Len(t, vals, len(exprs))
	return vals
}

func TestDeclaredSamplesAreValidCalls(t *testing.T) {
	rt := New(Options{})
	defer rt.Close()
	for _, f := range adminFuncs() {
		src := sampleArgs(f)
		_, err := parseArgs(f, luaValues(t, rt, src), rt.null())
		assert.NoError(t, err, "%s(%s): the declaration's own sample is refused", f.Name, strings.Join(src, ", "))
	}
}

// badValues are refused at every argument position of every function.
var badValues = []string{
	"function() end",
	"0/0", "math.huge", "-math.huge", "2^63", "-2^63 * 2",
	`string.rep("x", 1024 * 1024)`,
	"cyclic", "deep", "wide",
	"coroutine.create(function() end)",
}

// badPrelude defines the table-valued bad values, once.
const badPrelude = `
cyclic = {} cyclic[1] = cyclic cyclic.a = cyclic
deep = {} do local d = deep for i = 1, 200 do d[1] = {} d = d[1] end end
wide = {} for i = 1, 1100000 do wide[i] = "t" end
`

func TestBadValuesAtEveryPositionSendNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("walks every argument position of every function; run without -short")
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "kept"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := auditlog.Open(auditPath)
	require.NoError(t, err)
	e := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit}})
	e.run(badPrelude)
	before := clusterSnapshot(t, e)
	requests := countRequests(c)

	calls := 0
	refuse := func(f *Func, args []string, names ...string) {
		t.Helper()
		calls++
		src := fmt.Sprintf("return %s(%s)", f.Name, strings.Join(args, ", "))
		n := requests.Load()
		_, err := e.rt.DoString(context.Background(), "bad", src)
		label := fmt.Sprintf("%s(%s)", f.Name, strings.Join(args, ", "))
		require.Error(t, err, label)
		re, ok := err.(*RunError)
		require.True(t, ok, "%s: %T", label, err)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, "%s: %s", label, re.Message)
		assert.True(t, strings.HasPrefix(re.Message, f.Name+": "), "%s: error names the function: %s", label, re.Message)
		if len(names) > 0 {
			assert.True(t, containsAny(re.Message, names), "%s: error names the argument (%v): %s", label, names, re.Message)
		}
		assert.Equal(t, n, requests.Load(), "%s: a refused call sends no request", label)
	}
	for _, f := range adminFuncs() {
		sample := sampleArgs(f)
		for pos, p := range f.Params {
			for _, bad := range badValues {
				args := append(append([]string{}, sample[:pos]...), bad)
				refuse(f, args, argNames(p)...)
			}
		}
		if !f.hasOptionsTable() {
			refuse(f, append(append([]string{}, sample...), "1"), "takes ")
			continue
		}
		optsAt := len(f.Params)
		for _, o := range f.options() {
			for _, bad := range badValues {
				if _, isAny := o.Type.(AnyType); isAny && !strings.Contains("cyclic deep wide", bad) {
					continue
				}
				if bad == "function() end" && o.Type.accepts(&lua.LFunction{}) {
					continue // a callback (reassign's throttle and on_progress)
				}
				args := append(append([]string{}, sample[:optsAt]...), optionsWith(f, o.Name+" = "+bad))
				refuse(f, args, o.Name)
			}
			// A misspelled option names the one meant.
			args := append(append([]string{}, sample[:optsAt]...), optionsWith(f, o.Name+"x = true"))
			refuse(f, args, fmt.Sprintf("did you mean %q", o.Name))
		}
		refuse(f, append(append([]string{}, sample...), "1"), "takes ")
	}
	t.Logf("%d refused calls over %d functions", calls, len(adminFuncs()))
	raw, err := os.ReadFile(auditPath)
	require.NoError(t, err)
	assert.Empty(t, string(raw), "a refused call writes no audit line")
	assert.Equal(t, before, clusterSnapshot(t, e), "the cluster did not change")
}

// optionsWith is f's sample options table with one more key set.
func optionsWith(f *Func, kv string) string {
	s := f.optionsRecord().sample()
	if s == "{}" {
		return "{" + kv + "}"
	}
	return strings.TrimSuffix(s, "}") + ", " + kv + "}"
}

// argNames are the words an error about p may name it by: its name, or
// the name of its list's items ("spec #2").
func argNames(p Param) []string {
	names := []string{p.Name}
	if l, ok := p.Type.(*ListType); ok && l.item != "" {
		names = append(names, l.item)
	}
	return names
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// clusterSnapshot is what a refused call must not change: topics with
// their partitions, groups, ACLs and topic configs.
func clusterSnapshot(t *testing.T, e *env) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	topics, err := e.adm.ListTopicsWithInternal(ctx)
	require.NoError(t, err)
	for _, td := range topics.Sorted() {
		fmt.Fprintf(&b, "topic %s %d\n", td.Topic, len(td.Partitions))
		rc, err := e.adm.DescribeTopicConfigs(ctx, td.Topic)
		require.NoError(t, err)
		for _, r := range rc {
			for _, cfg := range r.Configs {
				if cfg.Source == kmsg.ConfigSourceDynamicTopicConfig {
					fmt.Fprintf(&b, "  %s=%v\n", cfg.Key, cfg.MaybeValue())
				}
			}
		}
	}
	groups, err := e.adm.ListGroups(ctx)
	require.NoError(t, err)
	for _, g := range groups.Sorted() {
		fmt.Fprintf(&b, "group %s\n", g.Group)
	}
	return b.String()
}

func TestMisspeltOptionsInPlaceOfAnOptionalArgument(t *testing.T) {
	e := newEnv(t)
	for src, want := range map[string]string{
		`lag{partal = true}`:                           `lag: options: unknown key "partal" (did you mean "partial"?)`,
		`fetch_offsets("g", {partal = true})`:          `fetch_offsets: options: unknown key "partal" (did you mean "partial"?)`,
		`list_offsets("t", "latest", {partal = true})`: `list_offsets: options: unknown key "partal" (did you mean "partial"?)`,
		// An argument given as an option is named as the argument it is.
		`watch(lag, {count = 1, interval = 0.5})`: `watch: options: "interval" is an argument of watch, not an option: watch(fn[, interval][, {count=, window=}])`,
		`lag({groups = "billing"})`:               `lag: options: "groups" is an argument of lag, not an option: lag([groups][, {`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
}

// TestEveryFunctionDeclaresItsArguments: no function reads its arguments
// its own way; the declaration is the only reader.
func TestEveryFunctionDeclaresItsArguments(t *testing.T) {
	for _, f := range Funcs() {
		assert.True(t, f.declared(), "%s declares no arguments (Params, Options, NoArgs or TableCall)", f.Name)
		assert.Empty(t, f.Args, "%s: the call's shape comes from the declaration, not a hand-written Args", f.Name)
	}
	admin := 0
	for _, f := range Funcs() {
		if f.IsAdmin() {
			admin++
		}
	}
	assert.Len(t, adminFuncs(), admin, "every admin function is covered by the argument tests")
}
