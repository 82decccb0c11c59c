package luaapi

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// readBack reads every record of topic through a separate consumer.
func readBack(t *testing.T, e *env, topic string, want int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	var got []*kgo.Record
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < want && time.Now().Before(deadline) {
		fs := cl.PollRecords(e.ctx(), want-len(got))
		got = append(got, fs.Records()...)
	}
	return got
}

// auditOps is the op and type of each line of the audit log.
func auditOps(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		out = append(out, m)
	}
	return out
}

// TestProduceWritesRecordsAudited: key, value, headers, partition and
// timestamp reach the topic as given (a separate consumer reads them); the
// intent line describes the records without their values and the outcome
// line has each one's partition and offset.
func TestProduceWritesRecordsAudited(t *testing.T) {
	e, path := auditedEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 3, 1, nil, "events")
	require.NoError(t, err)
	out := e.json(`return produce("events", {
		{key = "k1", value = "secret-ish payload", headers = {b = "2", a = "1"}, partition = 2, timestamp = 1700000000000},
		{value = "v2", partition = 0},
		{key = "k3"},
	})`)
	var res []struct {
		Index     int   `json:"index"`
		Partition int32 `json:"partition"`
		Offset    int64 `json:"offset"`
		Timestamp int64 `json:"timestamp"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res, 3)
	assert.Equal(t, 1, res[0].Index)
	assert.Equal(t, int32(2), res[0].Partition)
	assert.Equal(t, int64(0), res[0].Offset)
	assert.Equal(t, int64(1700000000000), res[0].Timestamp)
	assert.Equal(t, int32(0), res[1].Partition)

	got := readBack(t, e, "events", 3)
	require.Len(t, got, 3)
	byValue := map[string]*kgo.Record{}
	for _, r := range got {
		byValue[string(r.Key)+"="+string(r.Value)] = r
	}
	r1 := byValue["k1=secret-ish payload"]
	require.NotNil(t, r1)
	assert.Equal(t, int32(2), r1.Partition)
	assert.Equal(t, int64(1700000000000), r1.Timestamp.UnixMilli())
	assert.Equal(t, []kgo.RecordHeader{{Key: "a", Value: []byte("1")}, {Key: "b", Value: []byte("2")}}, r1.Headers)
	require.NotNil(t, byValue["=v2"])
	assert.Equal(t, int32(0), byValue["=v2"].Partition)
	k3 := byValue["k3="]
	require.NotNil(t, k3)
	assert.Nil(t, k3.Value, "a record without a value is a tombstone")
	assert.Equal(t, res[2].Partition, k3.Partition)

	lines := auditOps(t, path)
	require.Len(t, lines, 2)
	assert.Equal(t, "intent", lines[0]["type"])
	assert.Equal(t, "produce", lines[0]["op"])
	raw, _ := json.Marshal(lines[0]["args"])
	assert.NotContains(t, string(raw), "secret-ish payload", "values are not copied into the audit log")
	assert.Contains(t, string(raw), `"value_bytes":18`)
	assert.Contains(t, string(raw), `"headers":["a","b"]`)
	assert.Contains(t, string(raw), `"acks":"all","idempotent":true`)
	before, _ := json.Marshal(lines[0]["before"])
	assert.Contains(t, string(before), `"offset":0,"partition":2`)
	items, _ := json.Marshal(lines[1]["items"])
	assert.Contains(t, string(items), `{"detail":{"offset":0,"partition":2},"key":"events record 1","outcome":"ok"}`)
}

// TestProduceRefusesBeforeSending: bad records and options are refused with
// the function and argument named, nothing sent, nothing audited.
func TestProduceRefusesBeforeSending(t *testing.T) {
	e, path := auditedEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 2, 1, nil, "events")
	require.NoError(t, err)
	e.run(`list_topics()`)
	refusedBeforeSending(t, e, path, map[string]string{
		`produce("events", {{value = 5}})`:         "produce: record #1: value: must be a string",
		`produce("events", {})`:                    "produce: records",
		`produce("events", {{partition = -2}})`:    "produce: record #1: partition",
		`produce("events", {{valeu = "x"}})`:       "valeu",
		`produce("events", {{}}, {acks = "some"})`: "produce: options: acks",
		`produce("no such", {{value = "x"}})`:      "produce: topic",
	})
	// Checked against the cluster, still before anything is written.
	re := e.runErr(`produce("events", {{value = "x", partition = 2}})`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
	assert.Contains(t, re.Message, "produce: events record 1: partition 2: events has 2 partition(s) (0 to 1)")
	re = e.runErr(`produce("events", {{value = "x"}}, {acks = "leader", idempotent = true})`)
	assert.Contains(t, re.Message, `idempotent writes need acks "all"`)
	re = e.runErr(`produce("missing", {{value = "x"}})`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Empty(t, auditOps(t, path))
	o, err := e.adm.ListEndOffsets(e.ctx(), "events")
	require.NoError(t, err)
	o.Each(func(l kadm.ListedOffset) { assert.Zero(t, l.Offset) })

	// acks "leader" without idempotence writes.
	e.run(`local r = produce("events", {value = "x", partition = 1}, {acks = "leader"}); assert(r[1].offset == 0)`)
	// Under dry-run nothing is written.
	e.run(`kafka.dry_run(true)
		local r = produce("events", {value = "y", partition = 1})
		assert(r[1].dry_run and r[1].offset == -1)`)
	assert.Contains(t, e.stderr.String(), "dry-run: produce: write 1 record(s) to events")
	assert.Len(t, readBack(t, e, "events", 1), 1)
}

// TestProbeCreatesItsTopicAndTimesEachStep: the first probe creates the
// probe topic (a partition per broker, short retention), writes a record
// to each partition, reads it back and commits; a separate client sees the
// records and the group's offsets.
func TestProbeCreatesItsTopicAndTimesEachStep(t *testing.T) {
	e, path := auditedEnv(t)
	out := e.json(`local p = probe()
		assert(p.ok, table.concat(p.failures, "; "))
		assert(p.created and #p.partitions == 3)
		for _, x in ipairs(p.partitions) do
			assert(x.produce_ms >= 0 and x.end_to_end_ms >= 0 and x.offset == 0, kafka.json.encode(x))
		end
		assert(p.commit_ms >= 0 and p.produce_ms_max >= 0 and p.end_to_end_ms_max >= 0)
		local q = probe()
		assert(q.ok and not q.created and q.partitions[1].offset == 1)
		return q`)
	assert.Contains(t, out, `"topic":"kadmin-lua-probe"`)
	td, err := e.adm.ListTopics(e.ctx(), engine.ProbeTopic)
	require.NoError(t, err)
	assert.Len(t, td[engine.ProbeTopic].Partitions, 3)
	rc, err := e.adm.DescribeTopicConfigs(e.ctx(), engine.ProbeTopic)
	require.NoError(t, err)
	v, err := rc.On(engine.ProbeTopic, nil)
	require.NoError(t, err)
	for _, c := range v.Configs {
		if c.Key == "retention.ms" {
			assert.Equal(t, "3600000", *c.Value)
		}
	}
	got := readBack(t, e, engine.ProbeTopic, 6)
	assert.Len(t, got, 6)
	for _, r := range got {
		assert.Equal(t, "kadmin-lua-probe", string(r.Key))
	}
	offs, err := e.adm.FetchOffsets(e.ctx(), engine.ProbeGroup)
	require.NoError(t, err)
	for p := int32(0); p < 3; p++ {
		o, ok := offs.Lookup(engine.ProbeTopic, p)
		require.True(t, ok)
		assert.Equal(t, int64(2), o.At)
	}
	var ops []string
	for _, l := range auditOps(t, path) {
		if l["type"] == "intent" {
			ops = append(ops, l["op"].(string))
		}
	}
	assert.Equal(t, []string{"create_topics", "produce", "commit_offsets", "produce", "commit_offsets"}, ops)
	names := map[string]bool{}
	for _, m := range e.rt.Metrics() {
		names[m.Name] = true
	}
	for _, n := range []string{"kadmin_lua_probe_ok", "kadmin_lua_probe_failures", "kadmin_lua_probe_produce_seconds",
		"kadmin_lua_probe_end_to_end_seconds", "kadmin_lua_probe_commit_seconds"} {
		assert.True(t, names[n], n)
	}
}

// TestProbeNamesFailures: a partition that cannot be written is a failure
// in the result, named with its leader; the others are probed.
func TestProbeNamesFailures(t *testing.T) {
	e := newEnv(t)
	e.run(`probe()`)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: engine.ProbeTopic, Partitions: []int32{1},
		Err: kerr.NotEnoughReplicas, Count: -1})
	defer h.Remove()
	e.run(`local p = probe(nil, {timeout = 3000})
		assert(not p.ok)
		assert(#p.failures == 1, table.concat(p.failures, "; "))
		assert(p.failures[1]:find("kadmin-lua-probe[1] (leader ", 1, true), p.failures[1])
		assert(p.failures[1]:find("produce: NOT_ENOUGH_REPLICAS", 1, true), p.failures[1])
		assert(p.partitions[2].error.code == "NOT_ENOUGH_REPLICAS")
		assert(p.partitions[1].end_to_end_ms and p.partitions[3].end_to_end_ms)`)
	for _, m := range e.rt.Metrics() {
		if m.Name == "kadmin_lua_probe_ok" {
			assert.Zero(t, m.Value)
		}
	}
	// A named topic must exist.
	re := e.runErr(`probe("nope")`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
}
