package scripts_test

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/undo"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// The runbooks that move a group's committed offsets: reset-offsets,
// copy-group-offsets and skip-record.

func TestResetOffsets(t *testing.T) {
	e := newEnv(t)
	const s = "reset-offsets.lua"
	before := map[int32]int64{0: 28, 1: 25, 2: 52}
	require.Equal(t, before, e.committed("billing", "payments"))

	r := e.ok(true, s, "billing", "earliest")
	assert.Equal(t, before, e.committed("billing", "payments"), "dry-run commits nothing")
	require.Len(t, r.rows, 3)
	assert.Equal(t, true, r.rows[0]["dry_run"])
	assert.Contains(t, r.stderr, "dry-run: billing: would reset 3 partitions to earliest: 3 moved, 105 records rewound, 0 skipped")

	e.ok(false, s, "billing", "shift:-5", "payments:1")
	assert.Equal(t, map[int32]int64{0: 28, 1: 20, 2: 52}, e.committed("billing", "payments"))

	e.ok(false, s, "billing", "shift:+3", "payments")
	assert.Equal(t, map[int32]int64{0: 31, 1: 23, 2: 52}, e.committed("billing", "payments"), "clamped at the end")

	r = e.ok(false, s, "billing", "earliest")
	assert.Equal(t, map[int32]int64{0: 0, 1: 0, 2: 0}, e.committed("billing", "payments"))
	assert.Equal(t, 31.0, r.rows[0]["current"])

	e.ok(false, s, "billing", "offset:10", "payments")
	assert.Equal(t, map[int32]int64{0: 10, 1: 10, 2: 10}, e.committed("billing", "payments"))

	// A time in the future: every partition goes to its end.
	e.ok(false, s, "billing", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	assert.Equal(t, map[int32]int64{0: 32, 1: 36, 2: 52}, e.committed("billing", "payments"))

	// An hour and a half ago is before every demo record: the start.
	e.ok(false, s, "billing", "duration:-90m")
	assert.Equal(t, map[int32]int64{0: 0, 1: 0, 2: 0}, e.committed("billing", "payments"))

	r = e.run(false, s, "orders-processor", "earliest")
	require.NotNil(t, r.err)
	assert.Equal(t, luaapi.KindKafka, r.err.Kind)
	assert.Equal(t, "NON_EMPTY_GROUP", r.err.Code)

	e.usage(s, `TO must be earliest, latest, current`, "billing", "yesterday")
	e.usage(s, `shift must be an integer, got "x"`, "billing", "shift:x")
	e.usage(s, `offset must be a non-negative integer, got "-1"`, "billing", "offset:-1")
	e.usage(s, `TOPIC must be a topic name or TOPIC:PARTITION, got "payments:x"`, "billing", "latest", "payments:x")
	e.usage(s, "expected at least 2 arguments, got 1", "billing")
	assert.Equal(t, map[int32]int64{0: 0, 1: 0, 2: 0}, e.committed("billing", "payments"))
}

func TestCopyGroupOffsets(t *testing.T) {
	e := newEnv(t)
	const s = "copy-group-offsets.lua"

	r := e.ok(true, s, "billing", "billing-v2")
	assert.Empty(t, e.committed("billing-v2", "payments"), "dry-run commits nothing")
	require.Len(t, r.rows, 3)

	r = e.ok(false, s, "billing", "billing-v2")
	assert.Equal(t, e.committed("billing", "payments"), e.committed("billing-v2", "payments"))
	assert.Equal(t, -1.0, r.rows[0]["current"])
	assert.Contains(t, r.stderr, "billing-v2: copied 3 partition offsets from billing")

	e.ok(false, s, "orders-processor", "orders-replay", "orders")
	assert.Equal(t, map[int32]int64{0: 40, 1: 51, 2: 23, 3: 63, 4: 29, 5: 38}, e.committed("orders-replay", "orders"))

	r = e.run(false, s, "no-such-group", "x")
	require.NotNil(t, r.err)
	assert.Equal(t, luaapi.KindScript, r.err.Kind)
	assert.Contains(t, r.err.Message, "no-such-group has no committed offsets (does it exist?); nothing changed")
	r = e.run(false, s, "billing", "billing-v3", "orders")
	require.NotNil(t, r.err)
	assert.Contains(t, r.err.Message, "billing has no committed offsets on orders; nothing changed")
	assert.Empty(t, e.committed("billing-v3", "orders"))

	e.usage(s, "FROM and TO are the same group (billing)", "billing", "billing")
	e.usage(s, "expected at least 2 arguments, got 1", "billing")
}

// consumeAt reads n records of topic's partition from offset with a plain
// kgo consumer (no group): what skip-record should show.
func (e *env) consumeAt(topic string, partition int32, offset int64, n int) []*kgo.Record {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(offset)}}))
	require.NoError(e.t, err)
	defer cl.Close()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(e.ctx())
		require.NoError(e.t, fs.Err0())
		out = append(out, fs.Records()...)
	}
	return out[:n]
}

func TestSkipRecord(t *testing.T) {
	e := newEnv(t)
	const s = "skip-record.lua"
	before := map[int32]int64{0: 28, 1: 25, 2: 52}
	require.Equal(t, before, e.committed("billing", "payments"))
	want := e.consumeAt("payments", 1, 25, 2)

	// Dry run first: the record it would skip, the plan, nothing committed.
	r := e.ok(true, s, "billing", "payments", "1")
	assert.Equal(t, before, e.committed("billing", "payments"), "dry-run commits nothing")
	require.Len(t, r.rows, 1)
	assert.Equal(t, 25.0, r.rows[0]["offset"])
	assert.Equal(t, string(want[0].Key), r.rows[0]["key"])
	assert.Equal(t, float64(want[0].Timestamp.UnixMilli()), r.rows[0]["timestamp"])
	assert.Equal(t, float64(len(want[0].Key)+len(want[0].Value)), r.rows[0]["size"])
	assert.Equal(t, 26.0, r.rows[0]["target"])
	assert.NotContains(t, r.json, string(want[0].Value), "values are never shown")
	assert.Contains(t, r.stderr, `dry-run: billing: would skip payments[1] offset 25: key "`+string(want[0].Key)+`", `+strconv.Itoa(len(want[0].Key)+len(want[0].Value))+` bytes, 0 headers, CreateTime `+want[0].Timestamp.UTC().Format(time.RFC3339))
	assert.Contains(t, r.stderr, "dry-run: billing: would move payments[1] from 25 to 26 (1 record skipped)")

	// For real, two records, through the audit log.
	audit := filepath.Join(t.TempDir(), "skip.jsonl")
	log, err := auditlog.Open(audit)
	require.NoError(t, err)
	e.audit = log
	r = e.ok(false, s, "billing", "payments", "1", "--count", "2")
	require.NoError(t, log.Close())
	e.audit = nil
	assert.Equal(t, map[int32]int64{0: 28, 1: 27, 2: 52}, e.committed("billing", "payments"), "exactly that partition moved by 2")
	require.Len(t, r.rows, 2)
	assert.Equal(t, string(want[1].Key), r.rows[1]["key"])
	assert.Contains(t, r.stderr, "billing: moved payments[1] from 25 to 27 (2 records skipped)")

	// undo puts the committed offset back.
	changes, problems, err := auditlog.ReadFile(audit, auditlog.Options{})
	require.NoError(t, err)
	require.Empty(t, problems)
	require.Len(t, changes, 1)
	assert.Equal(t, "reset_offsets", changes[0].Intent.Op)
	cl, err := engine.New(engine.Config{Brokers: e.c.Addrs, Timeout: 10 * time.Second})
	require.NoError(t, err)
	defer cl.Close()
	_, err = undo.Run(e.ctx(), cl, changes, undo.Options{})
	require.NoError(t, err)
	assert.Equal(t, before, e.committed("billing", "payments"), "undo restored the offset")

	// Caught up: nothing to skip, nothing committed.
	r = e.ok(false, s, "billing", "payments", "2")
	assert.Empty(t, r.rows)
	assert.Contains(t, r.stderr, "billing: nothing to skip on payments[2]: the committed offset 52 is at the end")
	assert.Equal(t, before, e.committed("billing", "payments"))

	// An active group is refused as reset_offsets refuses it.
	r = e.run(false, s, "orders-processor", "orders", "1")
	require.NotNil(t, r.err, "stderr: %s\njson: %s", r.stderr, r.json)
	assert.Equal(t, luaapi.KindKafka, r.err.Kind)
	assert.Equal(t, "NON_EMPTY_GROUP", r.err.Code)
	assert.NotContains(t, r.stderr, "skipped", "nothing is said to be skipped")

	r = e.run(false, s, "nobody", "payments", "0")
	require.NotNil(t, r.err)
	assert.Contains(t, r.err.Message, "nobody has no committed offset on payments[0]")

	e.usage(s, `PARTITION must be a non-negative integer, got "x"`, "billing", "payments", "x")
	e.usage(s, `--count must be a positive integer, got "0"`, "billing", "payments", "0", "--count", "0")
	e.usage(s, "expected 3 arguments, got 2", "billing", "payments")
	assert.Equal(t, before, e.committed("billing", "payments"))
}
