package luaapi

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	lua "github.com/yuin/gopher-lua"
)

// kfake acknowledges reassignments without moving replicas and never lists
// one in progress: these tests check the requests sent and the mapping of
// crafted listings. The real move is tested by the real-Kafka suite.

// sentReassignments records every AlterPartitionAssignments request.
func sentReassignments(e *env) (func() map[string][]int32, *kfake.FaultHandle) {
	var mu sync.Mutex
	got := map[string][]int32{}
	seen := map[string]bool{}
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.AlterPartitionAssignments}, Observe: true, Count: -1, When: func(r kmsg.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, t := range r.(*kmsg.AlterPartitionAssignmentsRequest).Topics {
			for _, p := range t.Partitions {
				k := tpName(t.Topic, p.Partition)
				got[k], seen[k] = p.Replicas, true
			}
		}
		return true
	}})
	e.t.Cleanup(h.Remove)
	return func() map[string][]int32 {
		mu.Lock()
		defer mu.Unlock()
		out := map[string][]int32{}
		for k := range seen {
			out[k] = got[k]
		}
		return out
	}, h
}

func tpName(t string, p int32) string { return fmt.Sprintf("%s[%d]", t, p) }

func itoa(n int32) string { return fmt.Sprint(n) }

// craftListing makes kfake answer ListPartitionReassignments with moving
// for the next polls answers, then with nothing.
func craftListing(e *env, polls int, moving ...kmsg.ListPartitionReassignmentsResponseTopic) *int {
	var mu sync.Mutex
	n := 0
	e.cluster.ControlKey(int16(kmsg.ListPartitionReassignments), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		n++
		resp := r.(*kmsg.ListPartitionReassignmentsRequest).ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		if polls < 0 || n <= polls {
			resp.Topics = moving
		}
		return resp, nil, true
	})
	return &n
}

func moving(topic string, p int32, replicas, adding, removing []int32) kmsg.ListPartitionReassignmentsResponseTopic {
	t := kmsg.NewListPartitionReassignmentsResponseTopic()
	t.Topic = topic
	rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
	rp.Partition, rp.Replicas, rp.AddingReplicas, rp.RemovingReplicas = p, replicas, adding, removing
	t.Partitions = append(t.Partitions, rp)
	return t
}

func TestAlterPartitionReassignmentsSendsTargets(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "mv", partitions = 2, replication_factor = 1}}`)
	sent, h := sentReassignments(e)
	e.run(`
		local r = alter_partition_reassignments{
			{topic = "mv", partition = 1, replicas = {2, 0}},
			{topic = "mv", partition = 0, replicas = {1}},
		}
		assert(#r == 2 and r[1].partition == 0 and r[2].partition == 1)
		assert(r[2].replicas[1] == 2 and r[1].error == nil)
	`)
	assert.Equal(t, map[string][]int32{"mv[0]": {1}, "mv[1]": {2, 0}}, sent())
	assert.Equal(t, 1, h.Hits())
	// kfake keeps the topic (and does not move it); the cluster still
	// answers for both partitions.
	td, err := e.adm.ListTopics(e.ctx(), "mv")
	require.NoError(t, err)
	assert.Len(t, td["mv"].Partitions, 2)
}

func TestAlterPartitionReassignmentsErrors(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "mv", partitions = 1}}`)
	re := e.runErr(`alter_partition_reassignments{{topic = "nope", partition = 0, replicas = {0}}, {topic = "mv", partition = 0, replicas = {0}}}`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Contains(t, re.Message, "alter_partition_reassignments: nope[0]: UNKNOWN_TOPIC_OR_PARTITION")
	e.run(`
		local r = alter_partition_reassignments({{topic = "nope", partition = 0, replicas = {0}}}, {partial = true})
		assert(r[1].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
	`)
	for src, want := range map[string]string{
		`alter_partition_reassignments{{topic = "mv", partition = 0}}`:                        `alter_partition_reassignments: rows #1: replicas: is required`,
		`alter_partition_reassignments{{topic = "mv", partition = "x", replicas = {1}}}`:      `alter_partition_reassignments: rows #1: partition: must be a partition between 0 and 2147483647, got "x"`,
		`alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {"a"}}}`:      `alter_partition_reassignments: rows #1: replicas #1: must be a broker id between 0 and 2147483647, got "a"`,
		`alter_partition_reassignments("mv")`:                                                 `alter_partition_reassignments: rows: must be {topic=, partition=, replicas=} or a plan from plan_reassignment, or an array of them, got "mv"`,
		`alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {1}, x = 1}}`: `alter_partition_reassignments: rows #1: unknown key "x"`,
		`alter_partition_reassignments{{topic = "mv", replicas = {1}}}`:                       `alter_partition_reassignments: rows #1: partition: is required`,
		`alter_partition_reassignments{}`:                                                     `alter_partition_reassignments: rows: must name at least one`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
}

func TestAlterPartitionReassignmentsDryRunSendsNothing(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "mv", partitions = 1}}`)
	sent, _ := sentReassignments(e)
	e.run(`
		kafka.dry_run(true)
		local r = alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {2, 1}}}
		assert(r[1].dry_run == true and r[1].error == nil)
		local ok, err = pcall(alter_partition_reassignments, {{topic = "mv", partition = 0, replicas = {7}}})
		assert(not ok and err.code == "INVALID_REPLICA_ASSIGNMENT", tostring(err))
	`)
	assert.Empty(t, sent())
	assert.Contains(t, e.stderr.String(), "dry-run: alter_partition_reassignments: move mv[0] to brokers [2 1]")
}

func TestCancelPartitionReassignmentsSendsNullReplicas(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "mv", partitions = 2}}`)
	sent, _ := sentReassignments(e)
	// kfake has nothing in progress, so it answers NO_REASSIGNMENT_IN_PROGRESS.
	re := e.runErr(`cancel_partition_reassignments{{topic = "mv", partition = 1}}`)
	assert.Equal(t, "NO_REASSIGNMENT_IN_PROGRESS", re.Code)
	assert.Contains(t, re.Message, "mv[1]")
	got := sent()
	require.Contains(t, got, "mv[1]")
	assert.Nil(t, got["mv[1]"], "a cancel sends null replicas")
	re = e.runErr(`cancel_partition_reassignments{{topic = "mv", partition = 0, replicas = {1}}}`)
	assert.Contains(t, re.Message, `cancel_partition_reassignments: rows #1: unknown key "replicas"`)
}

func TestListPartitionReassignments(t *testing.T) {
	e := newEnv(t)
	assert.Equal(t, `[]`, e.json(`return list_partition_reassignments()`))
	craftListing(e, -1,
		moving("b", 3, []int32{0, 1, 2}, []int32{2}, []int32{0}),
		moving("a", 0, []int32{1, 2}, []int32{2}, nil))
	assert.Equal(t,
		`[{"adding_replicas":[2],"partition":0,"removing_replicas":[],"replicas":[1,2],"topic":"a"},`+
			`{"adding_replicas":[2],"partition":3,"removing_replicas":[0],"replicas":[0,1,2],"topic":"b"}]`,
		e.json(`return list_partition_reassignments()`))
	e.run(`local r = list_partition_reassignments("b"); assert(#r == 1 and r[1].topic == "b")`)
	re := e.runErr(`list_partition_reassignments(5)`)
	assert.Contains(t, re.Message, `list_partition_reassignments: topics: must be a topic name, or an array of them, got 5`)
}

func TestWaitReassignmentsReturnsFinished(t *testing.T) {
	e := newEnv(t)
	polls := craftListing(e, 2, moving("orders", 1, []int32{0, 1, 2}, []int32{2}, []int32{0}))
	e.run(`
		local done = wait_reassignments{interval_ms = 10, timeout = 10000}
		assert(#done == 1, #done)
		assert(done[1].topic == "orders" and done[1].partition == 1)
		assert(done[1].replicas[1] == 1 and done[1].replicas[2] == 2 and #done[1].replicas == 2)
	`)
	assert.Equal(t, 4, *polls, "three polls, then the throttle clean-up's look at what still moves")
	assert.Empty(t, e.stderr.String(), "no progress lines when stderr is not a terminal")
}

func TestWaitReassignmentsTimeoutNamesWhatMoves(t *testing.T) {
	e := newEnv(t)
	craftListing(e, -1, moving("orders", 4, []int32{0, 1}, []int32{1}, nil))
	// A second, not less: under a loaded -race run the first listing alone
	// has taken more than 200 ms, and the message then names nothing.
	re := e.runErr(`wait_reassignments{interval_ms = 20, timeout = 1000}`)
	assert.Equal(t, "TIMEOUT", re.Code)
	assert.Contains(t, re.Message, "wait_reassignments: TIMEOUT: reassignments still in progress after the timeout: orders[4]")
	re = e.runErr(`wait_reassignments{timeout = "soon"}`)
	assert.Contains(t, re.Message, `wait_reassignments: options: timeout: must be positive milliseconds or a duration like "10m", got "soon"`)
}

func TestWaitReassignmentsTopicsFilter(t *testing.T) {
	e := newEnv(t)
	craftListing(e, -1, moving("other", 0, []int32{0, 1}, []int32{1}, nil))
	assert.Equal(t, `[]`, e.json(`return wait_reassignments{topics = {"orders"}, timeout = "5s"}`))
}

func TestPlanReassignmentFromLuaAndApply(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "skew", partitions = 6, replication_factor = 1}}`)
	md, err := e.adm.Metadata(e.ctx(), "skew")
	require.NoError(t, err)
	brokers := md.Brokers.NodeIDs()
	require.Len(t, brokers, 3)

	sent, _ := sentReassignments(e)
	// kfake places replicas at random: the plan may have nothing to do, and
	// applying an empty plan must then be a no-op.
	e.run(`
		plan = plan_reassignment{topics = "skew", brokers = {` + itoa(brokers[0]) + `, ` + itoa(brokers[1]) + `}}
		local seen = {}
		for _, p in ipairs(plan.partitions) do
			assert(#p.target == 1 and #p.current == 1)
			seen[p.partition] = true
		end
		alter_partition_reassignments(plan)
	`)
	// Apply the plan to the real current assignment and check the result.
	after := map[int32]int{}
	cur := map[int32]int32{}
	for _, p := range md.Topics["skew"].Partitions {
		cur[p.Partition] = p.Replicas[0]
	}
	got := sent()
	for p, b := range cur {
		if tgt, ok := got[tpName("skew", p)]; ok {
			b = tgt[0]
		}
		after[b]++
	}
	assert.Equal(t, 3, after[brokers[0]], "six replicas over two brokers: three each (%v)", after)
	assert.Equal(t, 3, after[brokers[1]])
	// The fewest moves: every replica on the removed broker, plus what
	// either remaining broker holds beyond its three.
	count := map[int32]int{}
	for _, b := range cur {
		count[b]++
	}
	moves := count[brokers[2]] + max(0, count[brokers[0]]-3) + max(0, count[brokers[1]]-3)
	assert.Equal(t, moves, int(e.run(`return plan.moves`).(lua.LNumber)), "current %v", count)
}

func TestPlanReassignmentErrors(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "rf3", partitions = 1, replication_factor = 3}}`)
	re := e.runErr(`plan_reassignment{topics = "rf3", brokers = {0, 1}}`)
	assert.Equal(t, "INVALID_REPLICATION_FACTOR", re.Code)
	assert.Contains(t, re.Message, "plan_reassignment: rf3[0]: INVALID_REPLICATION_FACTOR")
	re = e.runErr(`plan_reassignment{topics = "missing"}`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	// A broker the cluster does not have is the cluster's answer, not a
	// malformed argument.
	re = e.runErr(`plan_reassignment{topics = "rf3", brokers = {99}}`)
	assert.Equal(t, "INVALID_REPLICA_ASSIGNMENT", re.Code)
	assert.Contains(t, re.Message, "plan_reassignment: INVALID_REPLICA_ASSIGNMENT: broker 99 is not in the cluster")
	for src, want := range map[string]string{
		`plan_reassignment("rf3")`:                              `plan_reassignment: takes one table {[topics=], [brokers=], [racks=], [by=], [replication_factor=], [leaders_only=], [drain=], [max_disk_usage=], [min_partition_bytes=], [partition_limit=]}, got "rf3"`,
		`plan_reassignment{}`:                                   `plan_reassignment: topics: is required`,
		`plan_reassignment{topics = "rf3", racks = {[0] = 1}}`:  `plan_reassignment: racks: 0: must be a rack name, got 1`,
		`plan_reassignment{topics = "rf3", brokerz = {0}}`:      `plan_reassignment: unknown key "brokerz" (did you mean "brokers"?)`,
		`plan_reassignment{topics = "rf3", brokers = "all"}`:    `plan_reassignment: brokers: must be a broker id between 0 and 2147483647, got "all"`,
		`plan_reassignment{topics = "rf3", racks = {x = "a"}}`:  `plan_reassignment: racks: key x: must be a broker id between 0 and 2147483647, got "x"`,
		`plan_reassignment{topics = {"rf3"}, brokers = {-1}}`:   `plan_reassignment: brokers #1: must be a broker id between 0 and 2147483647, got -1`,
		`plan_reassignment{topics = {"rf3", 4}, brokers = {0}}`: `plan_reassignment: topics #2: must be a topic name, got 4`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
}

func TestPlanReassignmentUsesGivenRacks(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "r2", partitions = 4, replication_factor = 2}}`)
	md, err := e.adm.Metadata(e.ctx(), "r2")
	require.NoError(t, err)
	b := md.Brokers.NodeIDs()
	// Two racks: broker b[0] alone in one, so every partition needs it.
	e.run(`
		local plan = plan_reassignment{topics = "r2", racks = {[` + itoa(b[0]) + `] = "a", [` + itoa(b[1]) + `] = "b", [` + itoa(b[2]) + `] = "b"}}
		local cur = {}
		for _, t in ipairs(describe_topics("r2")) do for _, p in ipairs(t.partitions) do cur[p.partition] = p.replicas end end
		for _, p in ipairs(plan.partitions) do cur[p.partition] = p.target end
		for part, reps in pairs(cur) do
			local inA = 0
			for _, r in ipairs(reps) do if r == ` + itoa(b[0]) + ` then inA = inA + 1 end end
			assert(inA == 1, "partition " .. part .. " has no replica in rack a")
		end
	`)
}

func TestApplyingAnEmptyPlanChangesNothing(t *testing.T) {
	e := newEnv(t)
	e.run(`
		local r = alter_partition_reassignments{moves = 0, leader_changes = 0, partitions = {}}
		assert(#r == 0)
	`)
	re := e.runErr(`alter_partition_reassignments{}`)
	assert.Contains(t, re.Message, "alter_partition_reassignments: rows: must name at least one")
}

// Issue 7: numbers are checked for the width of the Kafka field they fill,
// options are true/false only, and nothing is sent when a call is refused.
func TestReassignmentArgumentsRefusedBeforeSending(t *testing.T) {
	e, auditPath := auditedEnv(t)
	e.run(`create_topics{{name = "mv", partitions = 2}}`)
	sent, _ := sentReassignments(e)
	refusedBeforeSending(t, e, auditPath, map[string]string{
		`alter_partition_reassignments{{topic = "mv", partition = 2^32 + 1, replicas = {0}}}`:                                         `alter_partition_reassignments: rows #1: partition: must be a partition between 0 and 2147483647, got 4294967297`,
		`alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {2^32}}}`:                                             `alter_partition_reassignments: rows #1: replicas #1: must be a broker id between 0 and 2147483647, got 4294967296`,
		`alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {1, 1}}}`:                                             `alter_partition_reassignments: rows #1: replicas: lists broker 1 twice`,
		`alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {}}}`:                                                 `alter_partition_reassignments: rows #1: replicas: must name at least one`,
		`alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {1}, target = {2}}}`:                                  `alter_partition_reassignments: rows #1: target: cannot be combined with replicas`,
		`alter_partition_reassignments({{topic = "mv", partition = 0, replicas = {1}}}, {partial = 1})`:                               `alter_partition_reassignments: options: partial: must be true or false, got 1`,
		`alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {1}}, {topic = "mv", partition = 0, replicas = {2}}}`: `alter_partition_reassignments: rows: mv[0] is given twice`,
		`alter_partition_reassignments{moves = 1, partitions = {{topic = "mv", partition = 0, target = {1}, moves = -1}}}`:            `alter_partition_reassignments: rows: partitions #1: moves: must be an integer between 0`,
		`cancel_partition_reassignments{{topic = "mv", partition = -1}}`:                                                              `cancel_partition_reassignments: rows #1: partition: must be a partition between 0 and 2147483647, got -1`,
		`cancel_partition_reassignments({{topic = "mv", partition = 0}}, {partial = true}, 3)`:                                        `cancel_partition_reassignments: takes at most 2 arguments`,
		`wait_reassignments{timeout = -1}`:                     `wait_reassignments: options: timeout: must be positive milliseconds`,
		`wait_reassignments{timeout = 0/0}`:                    `wait_reassignments: options: timeout: must be positive milliseconds or a duration like "10m", got NaN`,
		`wait_reassignments{timeout = 2^63}`:                   `wait_reassignments: options: timeout: must be positive milliseconds`,
		`wait_reassignments{timeout = "-5m"}`:                  `wait_reassignments: options: timeout: must be positive milliseconds`,
		`wait_reassignments{timout = "5m"}`:                    `wait_reassignments: options: unknown key "timout" (did you mean "timeout"?)`,
		`wait_reassignments{interval_ms = 0}`:                  `wait_reassignments: options: interval_ms: must be a poll interval in ms between 1 and`,
		`wait_reassignments({timeout = "5m"}, 1)`:              `wait_reassignments: takes at most 1 argument`,
		`plan_reassignment{topics = "mv", brokers = {2^31}}`:   `plan_reassignment: brokers #1: must be a broker id between 0 and 2147483647, got 2147483648`,
		`plan_reassignment{topics = "mv", racks = {[0] = ""}}`: `plan_reassignment: racks: 0: must not be empty`,
		`plan_reassignment{topics = {}}`:                       `plan_reassignment: topics: must name at least one`,
		`list_partition_reassignments("mv", 1)`:                `list_partition_reassignments: takes at most 1 argument`,
	})
	assert.Empty(t, sent(), "no reassignment was sent")
}
