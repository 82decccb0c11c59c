package luaapi

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// shareConsumer joins group as a real kgo share consumer of topic and
// polls until the group shows it as a member with an assignment.
func shareConsumer(e *env, group, topic string) *kgo.Client {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.ConsumeTopics(topic), kgo.ShareGroup(group))
	require.NoError(e.t, err)
	e.t.Cleanup(cl.Close)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		cl.PollFetches(ctx)
		cancel()
		ds, err := e.adm.DescribeShareGroups(e.ctx(), group)
		if err == nil && len(ds[group].Members) == 1 && len(ds[group].Members[0].Assignment) > 0 {
			return cl
		}
	}
	e.t.Fatal("the share consumer never joined")
	return nil
}

func TestShareGroupsDescribeAndAlterWithRealConsumer(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "q", partitions = 1}}`)
	cl := shareConsumer(e, "queue", "q")

	e.run(`
		local g = describe_share_groups("queue")[1]
		assert(g.group == "queue" and g.state == "Stable", g.state)
		assert(#g.members == 1, #g.members)
		local m = g.members[1]
		assert(m.subscribed_topics[1] == "q")
		assert(#m.assignment == 1 and m.assignment[1].topic == "q" and m.assignment[1].partition == 0)
		local ok, err = pcall(alter_share_group_offsets, "queue", {{topic = "q", partition = 0, offset = 0}})
		assert(not ok and err.code == "NON_EMPTY_GROUP", tostring(err))
	`)
	cl.Close()

	e.run(`
		local r = alter_share_group_offsets("queue", {{topic = "q", partition = 0, offset = 1}})
		assert(#r == 1 and r[1].offset == 1 and r[1].error == nil)
		local o = describe_share_group_offsets("queue")
		assert(#o == 1 and o[1].group == "queue" and o[1].topic == "q" and o[1].start_offset == 1, kafka.json.encode(o))
	`)
	ds, err := e.adm.DescribeShareGroupOffsets(e.ctx(), "queue")
	require.NoError(t, err)
	so, ok := ds["queue"].Offsets.Lookup("q", 0)
	require.True(t, ok)
	assert.Equal(t, int64(1), so.StartOffset)

	e.run(`
		local r = delete_share_group_offsets("queue", "q")
		assert(#r == 1 and r[1].topic == "q" and r[1].error == nil)
	`)
	ds, err = e.adm.DescribeShareGroupOffsets(e.ctx(), "queue")
	require.NoError(t, err)
	_, ok = ds["queue"].Offsets.Lookup("q", 0)
	assert.False(t, ok, "the group's offsets for q are gone: %+v", ds["queue"].Offsets)
}

func TestShareGroupsErrorsAndDryRun(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "q", partitions = 2}}`)
	re := e.runErr(`describe_share_groups{"none"}`)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "describe_share_groups: none:")

	e.run(`
		kafka.dry_run(true)
		local r = alter_share_group_offsets("dry", {{topic = "q", partition = 1, offset = 5}})
		assert(r[1].dry_run)
		delete_share_group_offsets("dry", {"q"})
		kafka.dry_run(false)
	`)
	assert.Contains(t, e.stderr.String(), "dry-run: alter_share_group_offsets: set dry start offset of q[1] to 5")
	assert.Contains(t, e.stderr.String(), "dry-run: delete_share_group_offsets: delete dry offsets of topic q")
	ds, err := e.adm.DescribeShareGroups(e.ctx(), "dry")
	require.NoError(t, err)
	assert.Error(t, ds["dry"].Err, "a dry run creates no share group")

	requests := countRequests(e.cluster)
	for src, want := range map[string]string{
		`alter_share_group_offsets(nil, {})`:                                                                                   `alter_share_group_offsets: group: is required`,
		`alter_share_group_offsets("g", "q")`:                                                                                  `alter_share_group_offsets: offsets: must be {topic=, partition=, offset=}, or an array of them, got "q"`,
		`alter_share_group_offsets("g", {})`:                                                                                   `alter_share_group_offsets: offsets: must name at least one`,
		`alter_share_group_offsets("g", {{topic = "q", partition = 0}})`:                                                       `alter_share_group_offsets: offsets #1: offset: is required`,
		`alter_share_group_offsets("g", {{topic = "q", partition = 0, at = 1}})`:                                               `alter_share_group_offsets: offsets #1: unknown key "at"`,
		`alter_share_group_offsets("g", {{topic = "q", partition = 0, offset = -1}})`:                                          `alter_share_group_offsets: offsets #1: offset: must be an offset between 0 and 9223372036854775807, got -1`,
		`alter_share_group_offsets("g", {{topic = "q", partition = 2^32, offset = 1}})`:                                        `alter_share_group_offsets: offsets #1: partition: must be a partition between 0 and 2147483647, got 4294967296`,
		`alter_share_group_offsets("g", {{topic = "q", partition = 0, offset = 2^63}})`:                                        `alter_share_group_offsets: offsets #1: offset: must be an offset between 0 and 9223372036854775807`,
		`alter_share_group_offsets("g", {{topic = "q", partition = 1, offset = 1}, {topic = "q", partition = 1, offset = 2}})`: `alter_share_group_offsets: offsets #2: partition: q[1] is given twice`,
		`delete_share_group_offsets("g")`:                                                                                      `delete_share_group_offsets: topics: is required`,
		`delete_share_group_offsets("g", {})`:                                                                                  `delete_share_group_offsets: topics: must name at least one`,
		`delete_share_group_offsets("g", "q", {x = 1})`:                                                                        `delete_share_group_offsets: options: unknown key "x"`,
		`describe_share_group_offsets(3)`:                                                                                      `describe_share_group_offsets: groups: must be a group id, or an array of them, got 3`,
		`describe_share_groups("g", {partial = 1})`:                                                                            `describe_share_groups: options: partial: must be true or false, got 1`,
		`describe_share_groups("g", {}, 3)`:                                                                                    `describe_share_groups: takes at most 2 arguments`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "refused calls send nothing")
}
