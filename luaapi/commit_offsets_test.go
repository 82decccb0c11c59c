package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommitOffsets(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 3, 10)
	out := e.json(`return commit_offsets("fresh", {
		{topic = "events", partition = 2, offset = 7, metadata = "replay"},
		{topic = "events", partition = 0, offset = 5, leader_epoch = 0},
	})`)
	assert.Equal(t, `[{"partition":0,"topic":"events"},{"partition":2,"topic":"events"}]`, out)

	fetched, err := e.adm.FetchOffsets(e.ctx(), "fresh")
	require.NoError(t, err)
	o, ok := fetched.Lookup("events", 0)
	require.True(t, ok)
	assert.Equal(t, int64(5), o.At)
	assert.Equal(t, int32(0), o.LeaderEpoch)
	o, ok = fetched.Lookup("events", 2)
	require.True(t, ok)
	assert.Equal(t, int64(7), o.At)
	assert.Equal(t, "replay", o.Metadata)
	_, ok = fetched.Lookup("events", 1)
	assert.False(t, ok)

	// A single record is accepted too.
	e.run(`commit_offsets("fresh", {topic = "events", partition = 1, offset = 1})`)
	fetched, err = e.adm.FetchOffsets(e.ctx(), "fresh")
	require.NoError(t, err)
	o, _ = fetched.Lookup("events", 1)
	assert.Equal(t, int64(1), o.At)
}

func TestCommitOffsetsPerPartitionErrorsAndLiveGroup(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 3)
	e.run(`
		local ok, err = pcall(commit_offsets, "g", {
			{topic = "events", partition = 0, offset = 1},
			{topic = "nope", partition = 0, offset = 1},
		})
		assert(not ok)
		assert(err.code == "UNKNOWN_TOPIC_OR_PARTITION", err.code)
		assert(#err.results == 2 and err.results[1].error == nil and err.results[2].error ~= nil)
	`)
	fetched, err := e.adm.FetchOffsets(e.ctx(), "g")
	require.NoError(t, err)
	o, ok := fetched.Lookup("events", 0)
	require.True(t, ok, "the good partition was committed")
	assert.Equal(t, int64(1), o.At)

	groupMember(t, e, "busy", false, "events")
	re := e.runErr(`commit_offsets("busy", {{topic = "events", partition = 0, offset = 0}})`)
	assert.Equal(t, "UNKNOWN_MEMBER_ID", re.Code)
	fetched, err = e.adm.FetchOffsets(e.ctx(), "busy")
	require.NoError(t, err)
	_, ok = fetched.Lookup("events", 0)
	assert.False(t, ok, "nothing committed to a live group")
}

func TestCommitOffsetsBadArguments(t *testing.T) {
	e := newEnv(t)
	for src, want := range map[string]string{
		`commit_offsets("g", {{topic = "t", partition = 0, offset = 1}, {topic = "t", partition = 1, offset = "x"}})`: `commit_offsets: offsets #2: offset: must be an offset between 0 and 9223372036854775807, got "x"`,
		`commit_offsets("g", {{topic = "t", partition = -1, offset = 1}})`:                                            `commit_offsets: offsets #1: partition: must be a partition between 0 and 2147483647, got -1`,
		`commit_offsets("g", {{topic = "t", partition = 0}})`:                                                         `commit_offsets: offsets #1: offset: is required`,
		`commit_offsets("g", {{partition = 0, offset = 1}})`:                                                          `commit_offsets: offsets #1: topic: is required`,
		`commit_offsets("g", {{topic = "t", partition = 0, offset = 1, bogus = true}})`:                               `commit_offsets: offsets #1: unknown key "bogus"`,
		`commit_offsets("g", {{topic = "t", partition = 0, offset = 1}, {topic = "t", partition = 0, offset = 2}})`:   `commit_offsets: offsets #2: partition: t[0] is given twice`,
		`commit_offsets("g", {{topic = "t", partition = 0, offset = 1, leader_epoch = 2^31}})`:                        `commit_offsets: offsets #1: leader_epoch: must be a leader epoch between -1 and 2147483647, got 2147483648`,
		`commit_offsets("g", {})`:  `commit_offsets: offsets: must name at least one`,
		`commit_offsets("g", "t")`: `commit_offsets: offsets: must be {topic=, partition=, offset=, [leader_epoch=], [metadata=]}, or an array of them, got "t"`,
		`commit_offsets(nil, {})`:  `commit_offsets: group: is required`,
		`commit_offsets("", {})`:   `commit_offsets: group: must not be empty`,
		`commit_offsets("g", {{topic = "t", partition = 0, offset = 1}}, {force = true})`: `commit_offsets: options: unknown key "force"`,
		`commit_offsets("g", {{topic = "t", partition = 0, offset = 1}}, {}, 4)`:          `commit_offsets: takes at most 3 arguments`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Empty(t, groupNames(t, e), "bad arguments commit nothing")
}

// The examples: a partition or an offset beyond its Kafka field's
// width is refused, not narrowed, and nothing is committed.
func TestCommitOffsetsOutOfRangeNumbersMoveNothing(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 10)
	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {0: 3, 1: 4}})
	requests := countRequests(e.cluster)
	for src, want := range map[string]string{
		// 2^32 narrowed to int32 is partition 0.
		`commit_offsets("g", {{topic = "events", partition = 2^32, offset = 9}})`:      `commit_offsets: offsets #1: partition: must be a partition between 0 and 2147483647, got 4294967296`,
		`commit_offsets("g", {{topic = "events", partition = 2^32 + 1, offset = 9}})`:  `got 4294967297`,
		`commit_offsets("g", {{topic = "events", partition = 0, offset = 2^63}})`:      `commit_offsets: offsets #1: offset: must be an offset between 0 and 9223372036854775807, got 9.223372036854776e+18`,
		`commit_offsets("g", {{topic = "events", partition = 0, offset = 0/0}})`:       `offsets #1: offset: must be an offset between`,
		`commit_offsets("g", {{topic = "events", partition = 0, offset = math.huge}})`: `offsets #1: offset: must be an offset between 0 and 9223372036854775807, got 1.7976931348623157e+308`,
		`commit_offsets("g", {{topic = "events", partition = 0.5, offset = 1}})`:       `partition: must be a partition between 0 and 2147483647, got 0.5`,
		`commit_offsets("g", {topic = "events", partition = 2^31, offset = 1})`:        `commit_offsets: offsets #1: partition: must be a partition between 0 and 2147483647, got 2147483648`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "a refused call sends nothing")
	assert.Equal(t, "events[0]=3 events[1]=4", committed(t, e, "g"), "the group's offsets did not move")
}
