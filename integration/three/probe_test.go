package three

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// consumeAll reads want records of topic from the start through a
// separate client.
func consumeAll(t *testing.T, topic string, want int) []*kgo.Record {
	t.Helper()
	cl, err := need(t).Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	ctx := ctxFor(t, time.Minute)
	var got []*kgo.Record
	for len(got) < want && ctx.Err() == nil {
		got = append(got, cl.PollRecords(ctx, want-len(got)).Records()...)
	}
	return got
}

// TestProduceAndProbeOnThreeBrokers: produce from the binary writes what a
// separate consumer reads, with an audit line per record; probe creates its
// topic with a partition led by each broker, reads each record back and
// commits, and writes its figures to --metrics-file.
func TestProduceAndProbeOnThreeBrokers(t *testing.T) {
	e := newEnv(t)
	const topic = "it3-produce"
	e.run(fmt.Sprintf(`create_topics{{name = %q, partitions = 3}}`, topic))
	waitISR(t, topic, time.Minute)
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.jsonl")
	r := runBinary(ctxFor(t, 2*time.Minute), t, "--yes", "--audit-log", audit, "-o", "json", "-e",
		fmt.Sprintf(`return produce(%q, {{key = "k1", value = "hello", headers = {trace = "t-1"}, partition = 2, timestamp = 1700000000000},
			{key = "k2", value = "world"}})`, topic))
	require.Equal(t, 0, r.Code, r.Stderr)
	var res []struct {
		Partition int32 `json:"partition"`
		Offset    int64 `json:"offset"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.Len(t, res, 2)
	assert.Equal(t, int32(2), res[0].Partition)
	assert.Equal(t, int64(0), res[0].Offset)

	got := consumeAll(t, topic, 2)
	require.Len(t, got, 2)
	byKey := map[string]*kgo.Record{}
	for _, rec := range got {
		byKey[string(rec.Key)] = rec
	}
	require.Contains(t, byKey, "k1")
	assert.Equal(t, "hello", string(byKey["k1"].Value))
	assert.Equal(t, int32(2), byKey["k1"].Partition)
	assert.Equal(t, int64(1700000000000), byKey["k1"].Timestamp.UnixMilli())
	assert.Equal(t, []kgo.RecordHeader{{Key: "trace", Value: []byte("t-1")}}, byKey["k1"].Headers)
	require.Contains(t, byKey, "k2")
	assert.Equal(t, res[1].Partition, byKey["k2"].Partition)
	assert.Equal(t, res[1].Offset, byKey["k2"].Offset)

	b, err := os.ReadFile(audit)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"op":"produce"`)
	assert.NotContains(t, lines[0], "hello", "the audit log describes values, it does not copy them")
	assert.Contains(t, lines[1], fmt.Sprintf(`{"key":"%s record 1","outcome":"ok","detail":{"offset":0,"partition":2}}`, topic))

	// The probe, twice: the first creates its topic.
	metrics := filepath.Join(dir, "probe.prom")
	script := filepath.Join(dir, "probe.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local p = probe()
kafka.check(p.ok, table.concat(p.failures, "; "))
return p`), 0o600))
	var p struct {
		OK         bool `json:"ok"`
		Created    bool `json:"created"`
		Partitions []struct {
			Partition int32    `json:"partition"`
			Broker    int32    `json:"broker"`
			Offset    int64    `json:"offset"`
			Produce   *float64 `json:"produce_ms"`
			EndToEnd  *float64 `json:"end_to_end_ms"`
		} `json:"partitions"`
		Commit   *float64 `json:"commit_ms"`
		Failures []string `json:"failures"`
	}
	for i := range 2 {
		r = runBinary(ctxFor(t, 2*time.Minute), t, "-o", "json", "run", "--metrics-file", metrics, script)
		require.Equal(t, 0, r.Code, r.Stderr)
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &p))
		assert.True(t, p.OK, "%v", p.Failures)
		assert.Equal(t, i == 0, p.Created)
		require.Len(t, p.Partitions, 3, "a partition per broker")
		leaders := map[int32]bool{}
		for _, pp := range p.Partitions {
			leaders[pp.Broker] = true
			assert.Equal(t, int64(i), pp.Offset)
			require.NotNil(t, pp.Produce)
			require.NotNil(t, pp.EndToEnd)
		}
		assert.Len(t, leaders, 3, "each partition led by another broker")
		require.NotNil(t, p.Commit)
	}
	t.Logf("probe: %s", r.Stdout)
	// A separate client sees the probe records and the group's offsets.
	assert.Len(t, consumeAll(t, engine.ProbeTopic, 6), 6)
	offs, err := admin(t).FetchOffsets(ctxFor(t, time.Minute), engine.ProbeGroup)
	require.NoError(t, err)
	for part := int32(0); part < 3; part++ {
		o, ok := offs.Lookup(engine.ProbeTopic, part)
		require.True(t, ok)
		assert.Equal(t, int64(2), o.At)
	}
	rc, err := admin(t).DescribeTopicConfigs(ctxFor(t, time.Minute), engine.ProbeTopic)
	require.NoError(t, err)
	cfg, err := rc.On(engine.ProbeTopic, nil)
	require.NoError(t, err)
	for _, c := range cfg.Configs {
		if want, ok := engine.ProbeTopicConfigs[c.Key]; ok {
			assert.Equal(t, want, *c.Value, c.Key)
		}
	}
	prom, err := os.ReadFile(metrics)
	require.NoError(t, err)
	assert.Contains(t, string(prom), `kadmin_lua_probe_ok{topic="kadmin-lua-probe"} 1`)
	assert.Contains(t, string(prom), `kadmin_lua_probe_end_to_end_seconds{broker="`)
}
