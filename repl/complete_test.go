package repl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
