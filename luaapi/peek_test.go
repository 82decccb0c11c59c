package luaapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// peekRecords writes records with keys, headers and set timestamps to
// topic's partition 0 through an independent client.
func peekRecords(t *testing.T, e *env, topic string, recs ...*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	for _, r := range recs {
		r.Topic = topic
		require.NoError(t, cl.ProduceSync(e.ctx(), r).FirstErr())
	}
}

func TestPeekFromLua(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "pk", partitions = 1}}`)
	base := time.UnixMilli(1_780_000_000_000)
	peekRecords(t, e, "pk",
		&kgo.Record{Key: []byte("a"), Value: []byte(`{"n":1,"tags":["x"]}`), Timestamp: base,
			Headers: []kgo.RecordHeader{{Key: "trace", Value: []byte("t-1")}}},
		&kgo.Record{Key: []byte("b\x1b[31m"), Value: []byte("not json \x00"), Timestamp: base.Add(time.Second)},
		&kgo.Record{Value: []byte(`"s"`), Timestamp: base.Add(2 * time.Second)},
	)
	e.run(`commit_offsets("pk-group", {{topic = "pk", partition = 0, offset = 1}})`)

	// Without values: metadata, key and headers only.
	assert.Equal(t,
		`[{"headers":[{"key":"trace","value":"t-1"}],"key":"a","offset":0,"size":21,"timestamp":1780000000000,"timestamp_type":"CreateTime"}]`,
		e.json(`return peek("pk", 0, 0, {count = 1})`))

	// format json: a value that parses is a Lua value, one that does not
	// keeps its escaped text and gets an error; keys are escaped text.
	e.run(`
		local rows = peek("pk", 0, "earliest", {values = true, format = "json"})
		assert(#rows == 3, #rows)
		assert(rows[1].value.n == 1 and rows[1].value.tags[1] == "x", "decoded")
		assert(rows[1].error == nil)
		assert(rows[2].key == "b\\x1b[31m", rows[2].key)
		assert(rows[2].value == "not json \\x00", rows[2].value)
		assert(rows[2].error.code == "INVALID_JSON", tostring(rows[2].error))
		assert(rows[3].key == nil and rows[3].value == "s")
		assert(rows[3].timestamp == 1780000002000)
	`)
	// format hex, from the end, from a group's commit, from a time.
	e.run(`
		local h = peek("pk", 0, 1, {count = 1, values = true, format = "hex"})
		assert(h[1].key == "621b5b33316d" and h[1].value == "6e6f74206a736f6e2000", h[1].value)
		local last = peek("pk", 0, "latest", {count = 2})
		assert(#last == 2 and last[1].offset == 1 and last[2].offset == 2)
		local g = peek("pk", 0, {group = "pk-group"}, {count = 1})
		assert(#g == 1 and g[1].offset == 1)
		local at = peek("pk", 0, {timestamp = 1780000001500})
		assert(#at == 1 and at[1].offset == 2)
		local text = peek("pk", 0, "1", {count = 1, values = true})
		assert(text[1].value == "not json \\x00", "an offset as a string, as script arguments come")
	`)
	// Nothing was committed, no group joined.
	offs, err := e.adm.FetchOffsets(e.ctx(), "pk-group")
	require.NoError(t, err)
	o, _ := offs.Lookup("pk", 0)
	assert.Equal(t, int64(1), o.At)

	// Faults raise errors naming the partition.
	for src, want := range map[string]string{
		`peek("nope", 0, 0)`:                          "peek: nope[0]: UNKNOWN_TOPIC_OR_PARTITION: topic nope does not exist",
		`peek("pk", 4, 0)`:                            "peek: pk[4]: UNKNOWN_TOPIC_OR_PARTITION: topic pk has 1 partitions",
		`peek("pk", 0, 7)`:                            "peek: pk[0]: OFFSET_OUT_OF_RANGE: offset 7 is outside pk[0]'s records: offsets 0 to 3",
		`peek("pk", 0, {group = "none"})`:             "peek: pk[0]: NO_COMMITTED_OFFSET: group none has no committed offset on pk[0]",
		`peek("pk", 0, "lastest")`:                    `(did you mean "latest"?)`,
		`peek("pk", 0, 0, {count = 10001})`:           "count",
		`peek("pk", 0, {timestamp = 1, group = "g"})`: "give timestamp or group, not both",
		`peek("pk", 0, 0, {format = "yaml"})`:         "format",
	} {
		re := e.runErr(src)
		assert.Contains(t, re.Error(), want, src)
	}
}

// The REPL shows rows as a table with times and escaped keys; JSON output
// has every row.
func TestPeekOutput(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "pko", partitions = 1}}`)
	peekRecords(t, e, "pko", &kgo.Record{Key: []byte("k\x07"), Value: []byte("v"), Timestamp: time.UnixMilli(1_780_000_000_000)})
	table := e.format(`return peek("pko", 0, "earliest", {values = true})`, "table")
	assert.Contains(t, table, "2026-05-28T20:26:40.000Z")
	assert.Contains(t, table, `k\a`)
	assert.NotContains(t, table, "\a")
	js := e.format(`return peek("pko", 0, "earliest", {values = true})`, "json")
	assert.Contains(t, js, `"value": "v"`)
	assert.Contains(t, js, `"offset": 0`)
	assert.Contains(t, js, `"key": "k\\a"`, "text is escaped in JSON too: hex gives the exact bytes")
}
