package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// Issue 33, item 4: lag() of 100 streams groups (KIP-1071) against L, the
// same 100 groups as consumer groups: each a Kafka Streams application with
// one running instance whose one subtopology reads L's 10 topics x 30
// partitions, committed as L's groups are. kfake has no streams groups:
// kafkatest.FakeStreams answers ListGroups and StreamsGroupDescribe for
// them. Compare BenchmarkLStreams_kadminLua with BenchmarkL_kadminLua and
// BenchmarkL_kadm (target: the ratio of L, <= 1.5x kadm Lag).
func BenchmarkLStreams_kadminLua(b *testing.B) {
	s := benchSeeded(b, seedL)
	sc := Full
	var sources []string
	var tasks []int32
	for t := range sc.LTopics {
		sources = append(sources, fmt.Sprintf("l-%05d", t))
	}
	for p := range int32(sc.LPartitions) {
		tasks = append(tasks, p)
	}
	var groups []kmsg.StreamsGroupDescribeResponseGroup
	for g := range sc.LGroups {
		grp := kafkatest.RecordedStreamsGroup(b, "stable", fmt.Sprintf("g-%03d", g))
		grp.Topology.Subtopologies = grp.Topology.Subtopologies[:1]
		grp.Topology.Subtopologies[0].SourceTopics = sources
		grp.Topology.Subtopologies[0].RepartitionSinkTopics = nil
		grp.Members[0].Assignment.ActiveTasks = []kmsg.TaskIDs{{SubtopologyID: "0", Partitions: tasks}}
		grp.Members[0].TargetAssignment = grp.Members[0].Assignment
		groups = append(groups, grp)
	}
	fake := kafkatest.NewFakeStreams(b, s.fake, nil, groups...)
	src, _ := workloadFS.ReadFile("workloads/L.lua")
	rt := luaRuntime(b, s.fake)
	if _, err := rt.DoString(context.Background(), "check", `local n = 0
for _, g in ipairs(lag()) do n = n + 1 end
assert(n == `+fmt.Sprint(sc.LGroups)+`, n)`); err != nil {
		b.Fatal(err)
	}
	if fake.Describes.Load() == 0 {
		b.Fatal("lag() did not describe the groups as streams groups")
	}
	runLua(b, rt, string(src))
}
