package luaapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

type describedPartition struct {
	Partition    int32   `json:"partition"`
	Leader       int32   `json:"leader"`
	Replicas     []int32 `json:"replicas"`
	ISR          []int32 `json:"isr"`
	ELR          []int32 `json:"elr"`
	LastKnownELR []int32 `json:"last_known_elr"`
}

type describedTopic struct {
	Name       string               `json:"name"`
	Internal   bool                 `json:"internal"`
	Partitions []describedPartition `json:"partitions"`
}

// describe_topics() without names: every topic, in pages of at most 2000
// partitions (3 topics of 900 partitions take two pages, one topic split
// across them), the same as a separate client lists.
func TestDescribeTopicsAllPaged(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "big-a", partitions = 900}, {name = "big-b", partitions = 900}, {name = "big-c", partitions = 900}, "small"}`)
	var pages []*kmsg.DescribeTopicPartitionsRequest
	e.cluster.ControlKey(int16(kmsg.DescribeTopicPartitions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		pages = append(pages, r.(*kmsg.DescribeTopicPartitionsRequest))
		return nil, nil, false // observed, answered by kfake
	})
	var got []describedTopic
	require.NoError(t, json.Unmarshal([]byte(e.json(`return describe_topics()`)), &got))
	require.Len(t, pages, 2, "2704 partitions, at most 2000 an answer")
	assert.Empty(t, pages[0].Topics, "every topic")
	assert.Equal(t, int32(2000), pages[0].ResponsePartitionLimit)
	require.NotNil(t, pages[1].Cursor)
	assert.Equal(t, "big-c", pages[1].Cursor.Topic)
	assert.Equal(t, int32(200), pages[1].Cursor.Partition)

	want := e.topics() // a separate client
	var names []string
	for _, d := range got {
		names = append(names, d.Name)
		td := want[d.Name]
		require.Len(t, d.Partitions, len(td.Partitions), d.Name)
		for i, p := range d.Partitions {
			assert.Equal(t, int32(i), p.Partition, "%s sorted by partition, none twice", d.Name)
			assert.Equal(t, td.Partitions[p.Partition].Leader, p.Leader)
			assert.Equal(t, td.Partitions[p.Partition].Replicas, p.Replicas)
			assert.NotNil(t, p.ELR, "reported (empty) by a broker with DescribeTopicPartitions")
			assert.NotNil(t, p.LastKnownELR)
		}
	}
	assert.Equal(t, want.Names(), names, "every topic, sorted")
	// The same through names, and the list of topics the call checks.
	assert.Equal(t, e.json(`return describe_topics{"big-a", "big-b", "big-c", "small"}`), e.json(`return describe_topics()`))
	re := e.runErr(`describe_topics({})`)
	assert.Contains(t, re.Message, "describe_topics: names: ")
}

// ELR and last known ELR as the broker reports them; nil from a broker
// before Kafka 3.8 (answered with Metadata).
func TestDescribeTopicsELR(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "elr", partitions = 2, replication_factor = 3}}`)
	want := e.topics()["elr"]
	e.cluster.ControlKey(int16(kmsg.DescribeTopicPartitions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		req := r.(*kmsg.DescribeTopicPartitionsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
		rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
		rt.Topic, rt.TopicID = kmsg.StringPtr("elr"), want.ID
		for _, p := range want.Partitions.Sorted() {
			rp := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
			rp.Partition, rp.LeaderID, rp.LeaderEpoch, rp.Replicas = p.Partition, p.Leader, p.LeaderEpoch, p.Replicas
			rp.ISR = p.Replicas[:1]
			rp.EligibleLeaderReplicas = p.Replicas[1:2]
			if p.Partition == 1 {
				rp.LastKnownELR = p.Replicas[2:]
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	var got []describedTopic
	require.NoError(t, json.Unmarshal([]byte(e.json(`return describe_topics("elr")`)), &got))
	require.Len(t, got, 1)
	require.Len(t, got[0].Partitions, 2)
	p0, p1 := want.Partitions[0], want.Partitions[1]
	assert.Equal(t, p0.Replicas[1:2], got[0].Partitions[0].ELR)
	assert.Equal(t, []int32{}, got[0].Partitions[0].LastKnownELR)
	assert.Equal(t, p1.Replicas[2:], got[0].Partitions[1].LastKnownELR)
	assert.Equal(t, "table", e.run(`return type(describe_topics("elr")[1].partitions[1].last_known_elr)`).String(),
		"an empty set is an empty table, not nil")

	// A broker without DescribeTopicPartitions (before 3.8): Metadata, no ELR.
	v := kversion.Stable()
	v.SetMaxKeyVersion(int16(kmsg.DescribeTopicPartitions), -1)
	old := newEnv(t, kfake.MaxVersions(v))
	old.run(`create_topics{{name = "elr", partitions = 2, replication_factor = 3}, "other"}`)
	got = nil
	require.NoError(t, json.Unmarshal([]byte(old.json(`return describe_topics()`)), &got))
	require.Len(t, got, 2)
	for _, p := range got[0].Partitions {
		assert.Nil(t, p.ELR)
		assert.Nil(t, p.LastKnownELR)
	}
	assert.Equal(t, "nil", old.run(`return type(describe_topics("elr")[1].partitions[1].elr)`).String())
	assert.Equal(t, []string{"elr", "other"}, []string{got[0].Name, got[1].Name})
	assert.True(t, slices.IsSortedFunc(got[0].Partitions, func(a, b describedPartition) int { return int(a.Partition - b.Partition) }), fmt.Sprint(got[0].Partitions))
}

// A topic's partitions are made into Lua tables when the script first
// reads them (lazyFields): kept past the loop that read them, counted
// without being made, sorted, changed and printed, they are what a
// separate client sees and what the call without iterate returns.
func TestDescribeTopicsPartitionsMadeWhenRead(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "lz-a", partitions = 30, replication_factor = 3}, {name = "lz-b", partitions = 5, replication_factor = 2}}`)
	want := e.topics()
	e.run(`kept = {} for t in describe_topics(nil, {iterate = true}) do kept[t.name] = t end`)
	assert.Equal(t, "30 5", e.run(`return #kept["lz-a"].partitions .. " " .. #kept["lz-b"].partitions`).String())
	for _, name := range []string{"lz-a", "lz-b"} {
		var got []describedPartition
		require.NoError(t, json.Unmarshal([]byte(e.json(fmt.Sprintf(`return kept[%q].partitions`, name))), &got))
		require.Len(t, got, len(want[name].Partitions))
		for i, p := range got {
			w := want[name].Partitions[int32(i)]
			assert.Equal(t, w.Partition, p.Partition)
			assert.Equal(t, w.Leader, p.Leader)
			assert.Equal(t, w.Replicas, p.Replicas)
			assert.Equal(t, w.ISR, p.ISR)
		}
	}
	assert.Equal(t, e.json(`return describe_topics("lz-b")[1]`), e.json(`return kept["lz-b"]`),
		"printed the same as the call without iterate")
	// An ordinary table to every reader: ipairs, the table library, changes.
	assert.Equal(t, "4 3 2 1 0 ", e.run(`local ps = kept["lz-b"].partitions
		table.sort(ps, function(a, b) return a.partition > b.partition end)
		local s = "" for _, p in ipairs(ps) do s = s .. p.partition .. " " end return s`).String())
	assert.Equal(t, "6 4", e.run(`local ps = kept["lz-b"].partitions
		table.insert(ps, {partition = 99}) ps[1] = nil ps[1] = {partition = 4}
		return #ps .. " " .. ps[1].partition`).String())
	// Another topic's rows are not touched by reading this one's.
	assert.Equal(t, "0 29", e.run(`local ps = kept["lz-a"].partitions return ps[1].partition .. " " .. ps[#ps].partition`).String())
}
