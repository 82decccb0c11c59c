package luaapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func TestListOffsetsEarliestLatest(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "lo", partitions = 3}, {name = "other", partitions = 1}}`)
	produce(t, e, "lo", 0, 5)
	produce(t, e, "lo", 1, 3)
	_, err := e.adm.DeleteRecords(e.ctx(), offsetsOf("lo", 0, 2))
	require.NoError(t, err)

	ends, err := e.adm.ListEndOffsets(e.ctx(), "lo")
	require.NoError(t, err)
	starts, err := e.adm.ListStartOffsets(e.ctx(), "lo")
	require.NoError(t, err)
	var wantLatest, wantEarliest []string
	for p := range int32(3) {
		end, _ := ends.Lookup("lo", p)
		start, _ := starts.Lookup("lo", p)
		wantLatest = append(wantLatest, fmt.Sprintf(`{"leader_epoch":%d,"offset":%d,"partition":%d,"timestamp":-1,"topic":"lo"}`, end.LeaderEpoch, end.Offset, p))
		wantEarliest = append(wantEarliest, fmt.Sprint(start.Offset))
	}
	assert.Equal(t, "["+join(wantLatest)+"]", e.json(`return list_offsets("lo")`))
	assert.Equal(t, e.json(`return list_offsets("lo")`), e.json(`return list_offsets({"lo"}, "latest")`))
	e.run(`
		local l = list_offsets({"lo"}, "latest")
		assert(l[1].offset == 5 and l[2].offset == 3 and l[3].offset == 0)
		local c = list_offsets("lo", "committed")
		for i = 1, 3 do assert(c[i].offset == l[i].offset, "no transactions: committed == latest") end
	`)
	assert.Equal(t, "["+join(wantEarliest)+"]", e.json(`
		local out = {}
		for _, o in ipairs(list_offsets("lo", "earliest")) do out[#out+1] = o.offset end
		return out`))
	assert.Equal(t, "[2,0,0]", e.json(`
		local out = {}
		for _, o in ipairs(list_offsets("lo", "earliest_local")) do out[#out+1] = o.offset end
		return out`))
	assert.Equal(t, "[-1,-1,-1]", e.json(`
		local out = {}
		for _, o in ipairs(list_offsets("lo", "latest_tiered")) do out[#out+1] = o.offset end
		return out`), "nothing is tiered: Kafka's -1")

	// Sorted by topic then partition, across topics given in any order.
	assert.Equal(t, `[["lo",0],["lo",1],["lo",2],["other",0]]`, e.json(`
		local out = {}
		for _, o in ipairs(list_offsets{"other", "lo", "lo"}) do out[#out+1] = {o.topic, o.partition} end
		return out`))
}

func TestListOffsetsByTimestamp(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "ts", partitions = 2}}`)
	t1 := time.UnixMilli(1_700_000_000_000)
	t2 := t1.Add(time.Hour)
	produceAt(t, e, "ts", 0, 3, t1)
	produceAt(t, e, "ts", 0, 2, t2)

	want, err := e.adm.ListOffsetsAfterMilli(e.ctx(), t2.UnixMilli(), "ts")
	require.NoError(t, err)
	w0, _ := want.Lookup("ts", 0)
	require.Equal(t, int64(3), w0.Offset)

	e.run(fmt.Sprintf(`
		local r = list_offsets("ts", {timestamp = %d})
		assert(r[1].partition == 0 and r[1].offset == 3, r[1].offset)
		assert(r[1].timestamp == %d, r[1].timestamp)
		-- partition 1 is empty: no record at or after the time, so its end
		assert(r[2].partition == 1 and r[2].offset == 0 and r[2].timestamp == -1)

		local early = list_offsets("ts", {timestamp = 0})
		assert(early[1].offset == 0 and early[1].timestamp == %d)

		local future = list_offsets("ts", {timestamp = %d, partial = true})
		assert(future[1].offset == 5 and future[1].timestamp == -1, "after the last record: the end offset")

		local max = list_offsets("ts", "max_timestamp")
		assert(max[1].offset == 3 and max[1].timestamp == %d, max[1].offset)
		assert(max[2].offset == -1 and max[2].timestamp == -1, "empty partition: Kafka's -1")
	`, t2.UnixMilli(), t2.UnixMilli(), t1.UnixMilli(), t2.Add(time.Hour).UnixMilli(), t2.UnixMilli()))
}

func TestListOffsetsUnknownTopic(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "known", partitions = 2}}`)
	produce(t, e, "known", 1, 4)
	e.run(`
		local ok, err = pcall(list_offsets, {"known", "nope"})
		assert(not ok)
		assert(err.code == "UNKNOWN_TOPIC_OR_PARTITION", err.code)
		assert(err.op == "list_offsets" and err.resource == "nope", tostring(err.resource))
		assert(#err.results == 3, #err.results)
		assert(err.results[1].topic == "known" and err.results[1].error == nil)
		assert(err.results[2].topic == "known" and err.results[2].offset == 4)
		assert(err.results[3].topic == "nope" and err.results[3].partition == -1)
		assert(err.results[3].error.code == "UNKNOWN_TOPIC_OR_PARTITION")

		local r = list_offsets({"known", "nope"}, "latest", {partial = true})
		assert(#r == 3 and r[3].error ~= nil)
		r = list_offsets({"known", "nope"}, {partial = true})
		assert(#r == 3 and r[2].offset == 4)
		r = list_offsets({"known", "nope"}, {timestamp = 0, partial = true})
		assert(#r == 3 and r[3].error.code == "UNKNOWN_TOPIC_OR_PARTITION", "partial inside at")
		r = list_offsets({"known", "nope"}, "LATEST", {partial = true})
		assert(#r == 3 and r[2].offset == 4, "names are case-insensitive")
	`)
}

func TestListOffsetsRetriesLeaderNotAvailable(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "flaky", partitions = 3}}`)
	produce(t, e, "flaky", 2, 7)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "flaky", Partitions: []int32{2},
		Err: kerr.LeaderNotAvailable, Count: 3})
	defer h.Remove()
	e.run(`
		local r = list_offsets("flaky")
		assert(#r == 3 and r[3].offset == 7 and r[3].error == nil, r[3].offset)
	`)
	assert.Equal(t, 3, h.Hits())
}

func TestListOffsetsPersistentPartitionError(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "broken", partitions = 3}}`)
	produce(t, e, "broken", 0, 2)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "broken", Partitions: []int32{1},
		Err: kerr.UnsupportedVersion, Count: -1})
	defer h.Remove()
	e.run(`
		local ok, err = pcall(list_offsets, "broken")
		assert(not ok and err.code == "UNSUPPORTED_VERSION", tostring(err))
		assert(err.resource == "broken[1]", err.resource)
		assert(#err.results == 3)
		assert(err.results[1].offset == 2 and err.results[1].error == nil)
		assert(err.results[2].error.code == "UNSUPPORTED_VERSION")
		assert(err.results[3].offset == 0 and err.results[3].error == nil)
	`)
	assert.Equal(t, 1, h.Hits(), "a non-retriable error is not asked again")
}

func TestListOffsetsRetriableErrorEndsAtDeadline(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	e := newEnvOn(t, c, Options{Config: engine.Config{Timeout: 1500 * time.Millisecond}})
	e.run(`create_topics{{name = "stuck", partitions = 2}}`)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "stuck", Partitions: []int32{0},
		Err: kerr.LeaderNotAvailable, Count: -1})
	defer h.Remove()
	e.run(`
		local ok, err = pcall(list_offsets, "stuck")
		assert(not ok and err.code == "TIMEOUT", tostring(err))
		assert(err.resource == "stuck[0]")
		assert(err.message:find("LEADER_NOT_AVAILABLE"), err.message)
		assert(err.results[1].error.code == "TIMEOUT")
		assert(err.results[2].error == nil and err.results[2].offset == 0)
	`)
	assert.Greater(t, h.Hits(), 1, "retried")
}

func TestListOffsetsBadArguments(t *testing.T) {
	e := newEnv(t)
	requests := countRequests(e.cluster)
	for src, want := range map[string]string{
		`list_offsets(42)`:                                    `list_offsets: topics: must be a topic name, or an array of them, got 42`,
		`list_offsets({"a", 1})`:                              `list_offsets: topics #2: must be a topic name, got 1`,
		`list_offsets({})`:                                    `list_offsets: topics: must name at least one`,
		`list_offsets("a", "newest")`:                         `list_offsets: at: must be one of "earliest", "latest", "max_timestamp", "earliest_local", "latest_tiered", "earliest_pending_upload", "committed" or {timestamp=ms}, got "newest"`,
		`list_offsets("a", "lates")`:                          `got "lates" (did you mean "latest"?)`,
		`list_offsets("a", {timestamp = -5})`:                 `list_offsets: at: timestamp: must be a timestamp in ms between 0 and 9223372036854775807, got -5`,
		`list_offsets("a", {timestamp = 2^63})`:               `list_offsets: at: timestamp: must be a timestamp in ms between 0 and 9223372036854775807, got 9.223372036854776e+18`,
		`list_offsets("a", {timestamp = 0/0})`:                `list_offsets: at: timestamp: must be a timestamp in ms between`,
		`list_offsets("a", {timestamp = 1, partial = "yes"})`: `list_offsets: at: partial: must be true or false, got "yes"`,
		`list_offsets("a", {ts = 1})`:                         `list_offsets: at: unknown key "ts"`,
		`list_offsets("a", true)`:                             `list_offsets: at: must be one of`,
		`list_offsets("a", "latest", {bad = 1})`:              `list_offsets: options: unknown key "bad"`,
		`list_offsets("a", "latest", {partial = 1})`:          `list_offsets: options: partial: must be true or false, got 1`,
		`list_offsets("a", {partial = 0})`:                    `list_offsets: options: partial: must be true or false, got 0`,
		`list_offsets("a", "latest", {}, 4)`:                  `list_offsets: takes at most 3 arguments`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "refused calls send nothing")
}

// An empty list is not "every one": a script that filtered its groups or
// topics down to none asked about none, and got the whole cluster's. Only
// nil (left out) means every one, as for describe_topics and list_offsets.
func TestEmptyListsAreRefusedNotEveryOne(t *testing.T) {
	e := newEnv(t)
	requests := countRequests(e.cluster)
	for src, want := range map[string]string{
		`lag({})`:                          `lag: groups: must name at least one`,
		`lag_status({})`:                   `lag_status: groups: must name at least one`,
		`topic_sizes({})`:                  `topic_sizes: topics: must name at least one`,
		`list_partition_reassignments({})`: `list_partition_reassignments: topics: must name at least one`,
		`fetch_offsets("g", {})`:           `fetch_offsets: topics: must name at least one`,
		`lag({}, {summary = true})`:        `lag: groups: must name at least one`,
		`lag_status({}, {iterate = true})`: `lag_status: groups: must name at least one`,
	} {
		re := e.runErr(src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "refused before anything is sent")
}
