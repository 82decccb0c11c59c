package repl

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
	lua "github.com/yuin/gopher-lua"
)

func complete(e *env, line string) ([]string, int) {
	return Complete(e.rt.L, line, len(line))
}

func TestCompleteGlobalsAndFields(t *testing.T) {
	e := newEnv(t)

	c, n := complete(e, "kafka.js")
	assert.Equal(t, []string{"json"}, c)
	assert.Equal(t, 2, n)

	c, n = complete(e, "kafka.json.")
	assert.Equal(t, []string{"decode", "encode", "null"}, c)
	assert.Equal(t, 0, n)

	c, n = complete(e, "list_to")
	assert.Equal(t, []string{"list_topics"}, c)
	assert.Equal(t, 7, n)

	c, _ = complete(e, "x = descr")
	assert.Contains(t, c, "describe_topics")
	assert.NotContains(t, c, "list_topics")

	c, _ = complete(e, "re")
	assert.Subset(t, c, []string{"repeat", "require", "return"}, "keywords and globals")
	for _, s := range c {
		assert.Regexp(t, `^re`, s)
	}

	c, _ = complete(e, "string.fo")
	assert.Equal(t, []string{"format"}, c)

	// Only the word before the cursor counts.
	c, n = Complete(e.rt.L, "list_to + 1", len("list_to"))
	assert.Equal(t, []string{"list_topics"}, c)
	assert.Equal(t, 7, n)
}

func TestCompleteNothing(t *testing.T) {
	e := newEnv(t)
	for _, line := range []string{`print("kafka.js`, "no_such_table.", "kafka.json.encode.", "3.1", "a.b:c.", "zzz"} {
		c, _ := complete(e, line)
		assert.Empty(t, c, line)
	}
}

func TestCompleteMethods(t *testing.T) {
	e := newEnv(t)
	e.run(Options{}, line(`c = kafka.connect{brokers = "`+e.cluster.ListenAddrs()[0]+`"}`))

	c, n := complete(e, "c:list_")
	assert.Contains(t, c, "list_topics")
	assert.Equal(t, 5, n)
	for _, m := range c {
		assert.Regexp(t, `^list_`, m)
	}

	c, _ = complete(e, "c:cl")
	assert.Equal(t, []string{"close"}, c)

	c, _ = complete(e, "kafka.default:describe_to")
	assert.Equal(t, []string{"describe_topics"}, c)

	// `.` on an object also reaches its methods through __index.
	c, _ = complete(e, "c.list_to")
	assert.Equal(t, []string{"list_topics"}, c)
}

func TestReadlineCompleterAdapter(t *testing.T) {
	e := newEnv(t)
	do := completer(func(l string, pos int) ([]string, int) { return Complete(e.rt.L, l, pos) })

	suffixes, n := do.Do([]rune("kafka.js"), 8)
	require.Len(t, suffixes, 1)
	assert.Equal(t, "on", string(suffixes[0]))
	assert.Equal(t, 2, n)

	suffixes, n = do.Do([]rune("print(list_to"), len("print(list_to"))
	require.Len(t, suffixes, 1)
	assert.Equal(t, "pics", string(suffixes[0]))
	assert.Equal(t, 7, n)

	suffixes, _ = do.Do([]rune("zzz"), 3)
	assert.Empty(t, suffixes)
}

func TestCompleteDeclaredKeysInsideCalls(t *testing.T) {
	e := newEnv(t)
	c, n := complete(e, `create_topics({"x"}, {if_`)
	assert.Equal(t, []string{"if_not_exists"}, c, "options come from the declaration")
	assert.Equal(t, 3, n)

	c, _ = complete(e, `create_topics({{name = "x", repl`)
	assert.Equal(t, []string{"replication_factor"}, c, "fields of a record argument")

	c, _ = complete(e, `create_topics({"x"}, {va`)
	assert.Equal(t, []string{"validate_only"}, c)

	c, _ = complete(e, `t = {if_`)
	assert.Empty(t, c, "a table outside a call has no declared keys")
}

// Fields of a value reached by indexing: tables held in variables are read
// (raw, with literal keys), function results come from the declaration,
// and nothing is called.
func TestCompleteFieldsOfIndexedValues(t *testing.T) {
	e := newEnv(t)
	e.createTopic("orders", 2)
	_, err := e.rt.DoString(context.Background(), "t", `
		t = describe_topics{"orders"}[1]
		ts = describe_topics{"orders"}
		nested = {a = {{b = {c = 1, cc = 2}}}, ["x y"] = {z = 1}, [2] = {two = true}}
		called = 0
		f = function() called = called + 1; return {{a = 1}} end`)
	require.NoError(t, err)
	metadata := count(e.cluster, kmsg.Metadata)

	for _, tc := range []struct {
		line string
		want []string
	}{
		{`t.partitions[1].`, []string{"elr", "isr", "last_known_elr", "leader", "leader_epoch", "offline_replicas", "partition", "replicas"}},
		{`t.partitions[2].le`, []string{"leader", "leader_epoch"}},
		{`t["partitions"][1].re`, []string{"replicas"}},
		{`ts[1].partitions[1].is`, []string{"isr"}},
		{`ts[1].na`, []string{"name"}},
		{`nested.a[1].b.`, []string{"c", "cc"}},
		{`nested["x y"].`, []string{"z"}},
		{`nested[2].`, []string{"two"}},
		{`print(nested.a[1].b.c`, []string{"c", "cc"}},
		{`list_topics()[1].`, []string{"id", "internal", "name", "partitions", "replication_factor"}},
		{`list_topics{internal = true}[1].na`, []string{"name"}},
		{`describe_topics{"orders"}[1].partitions[1].lea`, []string{"leader", "leader_epoch"}},
		{`describe_cluster().`, []string{"active_controller", "brokers", "cluster_id", "controller", "quorum", "quorum_error", "topics"}},
		{`describe_cluster().brokers[1].`, []string{"host", "id", "port", "rack", "reachable", "state"}},
		{`kafka.default:describe_cluster().cl`, []string{"cluster_id"}},
		{`lag("g")[1].partitions[1].end`, []string{"end_offset"}},
		{`describe_configs{topic = "orders"}[1].configs["retention.ms"].`, []string{"read_only", "sensitive", "source", "synonyms", "value"}},
		{`kafka.json.`, []string{"decode", "encode", "null"}},
	} {
		got, n := complete(e, tc.line)
		assert.Equal(t, tc.want, got, tc.line)
		if len(got) > 0 {
			assert.True(t, strings.HasPrefix(got[0], tc.line[len(tc.line)-n:]), tc.line)
		}
	}
	for _, line := range []string{
		`f()[1].`,                 // a Lua function: nothing is known, nothing is run
		`t.partitions[i].`,        // an index that is a variable
		`(t).`,                    // an expression in parentheses
		`list_topics()[1]:`,       // no methods on a record
		`list_topics().`,          // an array has no named fields
		`list_topics()[1].name.`,  // a scalar
		`describe_cluster()().`,   // the result is no function
		`t.partitions[1].leader.`, // a number
		`kafka.json.decode("{}").`,
		`nested[3].`,
	} {
		got, _ := complete(e, line)
		assert.Empty(t, got, line)
	}
	assert.Equal(t, lua.LNumber(0), e.rt.L.GetGlobal("called"), "completion ran no Lua function")
	assert.Zero(t, metadata.Load(), "completion called no admin function")
}

func TestCompleteIgnoresStringsAndComments(t *testing.T) {
	e := newEnv(t)
	for _, line := range []string{
		`x = "kafka.js`, `x = 'a' .. "kafka.js`, `x = [[kafka.js`, `x = [==[ ]] kafka.js`,
		`-- kafka.js`, `--[[ kafka.js`, `x = "a\"kafka.js`,
	} {
		got, _ := complete(e, line)
		assert.Empty(t, got, line)
	}
	for _, line := range []string{
		`x = "done" kafka.js`, `--[[ a comment ]] kafka.js`, "-- a comment\nkafka.js", `x = [[s]] .. kafka.js`,
		`x = "a\"b" .. kafka.js`, `x = '\'' .. kafka.js`,
	} {
		got, _ := complete(e, line)
		assert.Equal(t, []string{"json"}, got, line)
	}
}

func TestCallContext(t *testing.T) {
	for src, want := range map[string]string{
		`lag(`:                                     `lag [#1]`,
		`lag("a", `:                                `lag [#2]`,
		`describe_topics{"a", `:                    `describe_topics [#1 #2]`,
		`describe_acls{principal = `:               `describe_acls [#1 principal]`,
		`describe_acls{host = "h"; principal = `:   `describe_acls [#1 principal]`,
		`create_topics({{name = "x"}, {`:           `create_topics [#1 #2 #1]`,
		`x = {["a"] = f(g(1), `:                    `f [#2]`,
		`c:lag(`:                                   `c:lag [#1]`,
		`kafka.default:describe_configs{{topic = `: `kafka.default:describe_configs [#1 #1 topic]`,
		`f(function(x) return x end, `:             `f [#2]`,
		`f({a = {b = `:                             `f [#1 a b]`,
		`f{[1] = `:                                 ``,
		`f(t[`:                                     ``,
		`f((`:                                      ``,
		`if (`:                                     ``,
		`function g(`:                              ``,
		`f())`:                                     ``,
		`x = {`:                                    ``,
	} {
		toks, _ := lex(src)
		site, ok := callContext(toks)
		got := ""
		if ok {
			var steps []string
			for _, s := range site.path {
				if s.Index > 0 {
					steps = append(steps, "#"+strconv.Itoa(s.Index))
				} else {
					steps = append(steps, s.Key)
				}
			}
			got = site.callee + " [" + strings.Join(steps, " ") + "]"
		}
		assert.Equal(t, want, got, src)
	}
}
