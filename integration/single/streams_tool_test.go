package single

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What kadmin-lua prints of a streams group, and Kafka's
// StreamsGroupCommand's tables, in one form to compare.

func jsonUnmarshal(s string, out any) error { return json.Unmarshal([]byte(s), out) }

// lagRow is a partition row of lag().
type lagRow struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Committed int64  `json:"committed"`
	End       int64  `json:"end_offset"`
	Lag       int64  `json:"lag"`
}

type streamsTasks []struct {
	Subtopology string  `json:"subtopology"`
	Partitions  []int32 `json:"partitions"`
}

// streamsGroup is what the test reads of describe_streams_groups.
type streamsGroup struct {
	State                 string `json:"state"`
	TopologyReady         bool   `json:"topology_ready"`
	TopologyEpoch         int32  `json:"topology_epoch"`
	TargetAssignmentEpoch int32  `json:"target_assignment_epoch"`
	Members               []struct {
		MemberID           string       `json:"member_id"`
		ProcessID          string       `json:"process_id"`
		ClientID           string       `json:"client_id"`
		MemberProtocol     string       `json:"member_protocol"`
		MemberEpoch        int32        `json:"member_epoch"`
		ActiveTasks        streamsTasks `json:"active_tasks"`
		StandbyTasks       streamsTasks `json:"standby_tasks"`
		WarmupTasks        streamsTasks `json:"warmup_tasks"`
		TargetActiveTasks  streamsTasks `json:"target_active_tasks"`
		TargetStandbyTasks streamsTasks `json:"target_standby_tasks"`
		TargetWarmupTasks  streamsTasks `json:"target_warmup_tasks"`
	} `json:"members"`
}

// memberRow is member i as a row of `--describe --members --verbose`:
// the columns TARGET-ASSIGNMENT-EPOCH, TOPOLOGY-EPOCH, MEMBER,
// MEMBER-PROTOCOL, MEMBER-EPOCH, PROCESS, CLIENT-ID, then each kind of
// task (ACTIVE, TARGET-ACTIVE, ...) as subtopology:[partitions].
func (g streamsGroup) memberRow(i int) map[string]string {
	m := g.Members[i]
	row := map[string]string{
		"TARGET-ASSIGNMENT-EPOCH": strconv.Itoa(int(g.TargetAssignmentEpoch)),
		"TOPOLOGY-EPOCH":          strconv.Itoa(int(g.TopologyEpoch)),
		"MEMBER":                  m.MemberID,
		"MEMBER-PROTOCOL":         m.MemberProtocol,
		"MEMBER-EPOCH":            strconv.Itoa(int(m.MemberEpoch)),
		"PROCESS":                 m.ProcessID,
		"CLIENT-ID":               m.ClientID,
	}
	for kind, tasks := range map[string]streamsTasks{
		"ACTIVE": m.ActiveTasks, "STANDBY": m.StandbyTasks, "WARMUP": m.WarmupTasks,
		"TARGET-ACTIVE": m.TargetActiveTasks, "TARGET-STANDBY": m.TargetStandbyTasks, "TARGET-WARMUP": m.TargetWarmupTasks,
	} {
		var s []string
		for _, task := range tasks {
			ps := slices.Clone(task.Partitions)
			slices.Sort(ps)
			var parts []string
			for _, p := range ps {
				parts = append(parts, strconv.Itoa(int(p)))
			}
			s = append(s, task.Subtopology+":["+strings.Join(parts, ",")+"]")
		}
		if len(s) > 0 {
			slices.Sort(s)
			row[kind] = strings.Join(s, " ")
		}
	}
	return row
}

// parseMemberRow reads a row of `--describe --members --verbose`, as
// memberRow makes one ("ACTIVE: 0:[0,1,2]; 1:[0,1,2]; TARGET-ACTIVE: ...").
func parseMemberRow(line string) map[string]string {
	f := strings.Fields(line)
	if len(f) < 8 {
		return map[string]string{"unparsed": line}
	}
	row := map[string]string{}
	for i, col := range []string{"TARGET-ASSIGNMENT-EPOCH", "TOPOLOGY-EPOCH", "MEMBER", "MEMBER-PROTOCOL", "MEMBER-EPOCH", "PROCESS", "CLIENT-ID"} {
		row[col] = f[i+1]
	}
	kind := ""
	tasks := map[string][]string{}
	for _, tok := range f[8:] {
		if strings.HasSuffix(tok, ":") && strings.ToUpper(tok) == tok && !strings.Contains(tok, "[") {
			kind = strings.TrimSuffix(tok, ":")
			continue
		}
		tasks[kind] = append(tasks[kind], strings.TrimSuffix(tok, ";"))
	}
	for kind, s := range tasks {
		slices.Sort(s)
		row[kind] = strings.Join(s, " ")
	}
	return row
}

// offsetRow is a row of `--describe --offsets --verbose` (GROUP TOPIC
// PARTITION CURRENT-OFFSET LEADER-EPOCH LOG-END-OFFSET OFFSET-LAG);
// Committed is -1 where it prints "-".
type offsetRow struct {
	Topic     string
	Partition int32
	Committed int64
	End, Lag  int64
}

func parseOffsetRows(lines []string) []offsetRow {
	var rows []offsetRow
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 7 {
			rows = append(rows, offsetRow{Topic: "unparsed: " + line})
			continue
		}
		num := func(s string) int64 {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return -1
			}
			return n
		}
		rows = append(rows, offsetRow{Topic: f[1], Partition: int32(num(f[2])), Committed: num(f[3]), End: num(f[5]), Lag: num(f[6])})
	}
	return rows
}

// compareOffsets: lag() has the partitions the tool lists, with its log
// end offsets, and its current offsets and lags where it prints a current
// offset. Kafka 4.1's tool prints "-" as the current offset of the
// repartition topics though the group commits them (commits, read by the
// test's own client, has them), and counts their lag from the log start as
// for a partition without a commit; lag() counts from the commit.
func compareOffsets(t *testing.T, tool []string, lag []lagRow, commits map[string]int64) {
	t.Helper()
	key := func(topic string, p int32) string { return fmt.Sprintf("%s/%d", topic, p) }
	ours := map[string]lagRow{}
	for _, r := range lag {
		ours[key(r.Topic, r.Partition)] = r
	}
	theirs := parseOffsetRows(tool)
	require.Len(t, theirs, len(lag), "the same partitions; Kafka's tool:\n%s\nlag(): %+v", strings.Join(tool, "\n"), lag)
	for _, r := range theirs {
		k := key(r.Topic, r.Partition)
		o, ok := ours[k]
		if !assert.True(t, ok, "lag() has %s", k) {
			continue
		}
		assert.Equal(t, r.End, o.End, "LOG-END-OFFSET of %s", k)
		committed, has := commits[k]
		if r.Committed < 0 && has {
			assert.Equal(t, committed, o.Committed, "the commit of %s, which Kafka's tool does not show", k)
			assert.Equal(t, max(o.End-committed, 0), o.Lag, "lag of %s from its commit", k)
			continue
		}
		assert.Equal(t, r.Committed, o.Committed, "CURRENT-OFFSET of %s", k)
		assert.Equal(t, r.Lag, o.Lag, "OFFSET-LAG of %s", k)
	}
}
