package single

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestLagInTimeOnARealBroker: records produced by an independent client
// (python3-kafka, with timestamp_ms set) give lag(..., {time=true}) the
// exact oldest_unconsumed and behind_head_ms, and lag_ms is now minus it.
func TestLagInTimeOnARealBroker(t *testing.T) {
	need(t)
	py := tool(t, "/usr/bin/python3")
	topic, group := unique("lagtime"), unique("lagtime-g")
	r := adminRT(t, kafkatest.MechScram512)
	r.Run(fmt.Sprintf(`create_topics{{name = %q, partitions = 2}}`, topic))
	waitTopic(t, topic, 2)

	base := time.Now().Add(-time.Hour).UnixMilli()
	const script = `
import sys
from kafka import KafkaProducer
bootstrap, user, password, topic, base = sys.argv[1:6]
base = int(base)
p = KafkaProducer(bootstrap_servers=bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
    sasl_plain_username=user, sasl_plain_password=password, request_timeout_ms=20000)
for i, delta in enumerate([0, 60000, 120000]):
    p.send(topic, value=b"v%d" % i, partition=0, timestamp_ms=base + delta).get(timeout=20)
p.send(topic, value=b"w", partition=1, timestamp_ms=base + 300000).get(timeout=20)
p.flush()
p.close()
`
	out, err := exec.CommandContext(ctxT(t, time.Minute), py, "-c", script,
		cluster.Bootstrap(), kafkatest.AdminUser, kafkatest.AdminPassword, topic, fmt.Sprint(base)).CombinedOutput()
	require.NoError(t, err, "python3-kafka producer: %s", out)

	var got []struct {
		MaxLagMs   int64 `json:"max_lag_ms"`
		Partitions []struct {
			Partition        int32  `json:"partition"`
			Lag              int64  `json:"lag"`
			OldestUnconsumed *int64 `json:"oldest_unconsumed"`
			LagMs            *int64 `json:"lag_ms"`
			BehindHeadMs     *int64 `json:"behind_head_ms"`
			TimestampType    string `json:"timestamp_type"`
		} `json:"partitions"`
	}
	before := time.Now().UnixMilli()
	r.json(fmt.Sprintf(`
		commit_offsets(%[1]q, {{topic = %[2]q, partition = 0, offset = 1}, {topic = %[2]q, partition = 1, offset = 1}})
		return lag(%[1]q, {time = true})`, group, topic), &got)
	after := time.Now().UnixMilli()
	require.Len(t, got, 1)
	require.Len(t, got[0].Partitions, 2)
	p0, p1 := got[0].Partitions[0], got[0].Partitions[1]
	assert.EqualValues(t, 2, p0.Lag)
	require.NotNil(t, p0.OldestUnconsumed, "%+v", p0)
	assert.Equal(t, base+60000, *p0.OldestUnconsumed, "the timestamp the producer gave the record at the committed offset")
	assert.Equal(t, int64(60000), *p0.BehindHeadMs, "the newest record's timestamp minus it")
	assert.Equal(t, "CreateTime", p0.TimestampType)
	assert.GreaterOrEqual(t, *p0.LagMs, before-(base+60000))
	assert.LessOrEqual(t, *p0.LagMs, after-(base+60000))
	assert.EqualValues(t, 0, p1.Lag)
	require.NotNil(t, p1.LagMs)
	assert.EqualValues(t, 0, *p1.LagMs, "caught up")
	assert.Equal(t, *p0.LagMs, got[0].MaxLagMs)
}

// lag{observe = N} on the SASL node: an independent client (python3-kafka)
// commits group "moving" forward while the binary watches; group "still"
// does not move. Only the still one's lagging partition has stuck_ms, of
// at least the watch.
func TestLagObserveOnARealBroker(t *testing.T) {
	need(t)
	py := tool(t, "/usr/bin/python3")
	topic, still, moving := unique("observe"), unique("observe-still"), unique("observe-moving")
	r := adminRT(t, kafkatest.MechScram512)
	r.Run(fmt.Sprintf(`create_topics{{name = %q, partitions = 1}}`, topic))
	waitTopic(t, topic, 1)
	r.Run(fmt.Sprintf(`
		produce(%[1]q, {{value = "a"}, {value = "b"}, {value = "c"}, {value = "d"}, {value = "e"}, {value = "f"}})
		commit_offsets(%[2]q, {{topic = %[1]q, partition = 0, offset = 1}})
		commit_offsets(%[3]q, {{topic = %[1]q, partition = 0, offset = 1}})`, topic, still, moving))

	const committer = `
import sys, time
from kafka import KafkaConsumer, TopicPartition
from kafka.structs import OffsetAndMetadata
bootstrap, user, password, topic, group = sys.argv[1:6]
c = KafkaConsumer(bootstrap_servers=bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
    sasl_plain_username=user, sasl_plain_password=password, group_id=group, enable_auto_commit=False)
tp = TopicPartition(topic, 0)
c.assign([tp])
time.sleep(2)  # after the binary's first reading
for offset in (2, 3, 4):
    c.commit({tp: OffsetAndMetadata(offset, "")})
    time.sleep(0.3)
c.close()
`
	cmd := exec.CommandContext(ctxT(t, time.Minute), py, "-c", committer,
		cluster.Bootstrap(), kafkatest.AdminUser, kafkatest.AdminPassword, topic, moving)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())

	const observe = 5
	res := runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword, "-o", "json", "-e",
		fmt.Sprintf(`return lag({%q, %q}, {observe = %d})`, still, moving, observe))
	require.NoError(t, cmd.Wait(), "python3-kafka committer: %s", out)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	var got []struct {
		Group      string `json:"group"`
		Partitions []struct {
			Committed int64  `json:"committed"`
			Lag       int64  `json:"lag"`
			StuckMs   *int64 `json:"stuck_ms"`
		} `json:"partitions"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &got), res.Stdout)
	require.Len(t, got, 2)
	byGroup := map[string]int{got[0].Group: 0, got[1].Group: 1}
	s, m := got[byGroup[still]].Partitions[0], got[byGroup[moving]].Partitions[0]
	require.NotNil(t, s.StuckMs, "%+v", s)
	assert.GreaterOrEqual(t, *s.StuckMs, int64(observe*1000))
	assert.EqualValues(t, 5, s.Lag)
	assert.Nil(t, m.StuckMs, "committed forward while watched: %+v", m)
}
