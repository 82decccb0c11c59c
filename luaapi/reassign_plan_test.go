package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Plans on kfake (placement's own tests cover the planners' rules): the
// options reach the planner, the layout it reads (replicas, leaders, log
// dir sizes) is the cluster's, and the result is what
// alter_partition_reassignments takes.

// kfake places replicas at random (it ignores an assignment) and in one
// rack: the tests read the layout and check the plan against it.

func TestPlanReassignmentByBytes(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "b", partitions = 6, replication_factor = 1}}`)
	md, err := e.adm.Metadata(e.ctx(), "b")
	require.NoError(t, err)
	// Every partition on the broker holding the most (two at least) gets
	// 300 records, the others 5: moving one big partition off it narrows
	// the spread whatever the layout.
	held := map[int32]int{}
	full := int32(-1)
	for _, pd := range md.Topics["b"].Partitions {
		held[pd.Replicas[0]]++
		if full < 0 || held[pd.Replicas[0]] > held[full] {
			full = pd.Replicas[0]
		}
	}
	for p, pd := range md.Topics["b"].Partitions {
		n := 5
		if pd.Replicas[0] == full {
			n = 300
		}
		produce(t, e, "b", p, n)
	}
	sent, _ := sentReassignments(e)
	e.run(`
		plan = plan_reassignment{topics = "b", by = "bytes"}
		assert(plan.kind == "balance" and plan.by == "bytes")
		assert(plan.moves > 0, "one broker holds the big partitions")
		local copied = 0
		for _, p in ipairs(plan.partitions) do copied = copied + p.moves * p.bytes end
		assert(plan.bytes == copied and copied > 0)
		local before, after = 0, 0
		for _, b in ipairs(plan.brokers) do
			before, after = math.max(before, b.bytes_before), math.max(after, b.bytes_after)
		end
		assert(after < before, "the fullest broker holds less: " .. after .. " < " .. before)
		alter_partition_reassignments(plan)
	`)
	assert.NotEmpty(t, sent(), "the plan is what alter_partition_reassignments takes")
	notes := e.json(`return plan.notes`)
	assert.Contains(t, notes, "a broker's disk capacity is unknown", "kfake reports no usable disk numbers")
}

func TestPlanReassignmentReplicationFactor(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "rf", partitions = 3, replication_factor = 1}}`)
	md, err := e.adm.Metadata(e.ctx(), "rf")
	require.NoError(t, err)
	sent, _ := sentReassignments(e)
	e.run(`
		local up = plan_reassignment{topics = "rf", replication_factor = 3}
		assert(up.kind == "replication_factor" and up.moves == 6, up.moves)
		for _, p in ipairs(up.partitions) do
			assert(#p.target == 3 and p.target[1] == p.current[1], "the leader stays first")
		end
		alter_partition_reassignments(up)
	`)
	got := sent()
	require.Len(t, got, 3)
	for p, pd := range md.Topics["rf"].Partitions {
		r := got[tpName("rf", p)]
		assert.ElementsMatch(t, []int32{0, 1, 2}, r)
		assert.Equal(t, pd.Leader, r[0])
	}
	re := e.runErr(`plan_reassignment{topics = "rf", replication_factor = 4}`)
	assert.Equal(t, "INVALID_REPLICATION_FACTOR", re.Code)
	assert.Contains(t, re.Message, "replication_factor 4 is larger than the 3 brokers given")
}

func TestPlanReassignmentDrainAndDemote(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "d", partitions = 6, replication_factor = 2}}`)
	e.run(`
		local led, held = 0, 0
		for _, p in ipairs(describe_topics("d")[1].partitions) do
			if p.replicas[1] == 0 then led = led + 1 end
			if p.replicas[1] == 0 or p.replicas[2] == 0 then held = held + 1 end
		end
		local plan = plan_reassignment{drain = {0}}
		assert(plan.kind == "drain")
		assert(#plan.leadership == led, #plan.leadership .. " reorders for " .. led .. " led")
		for _, p in ipairs(plan.leadership) do
			assert(p.target[1] ~= 0 and p.target[2] == 0 and p.moves == 0)
		end
		assert(#plan.elect >= led)
		assert(plan.moves == held and #plan.partitions == held)
		for _, p in ipairs(plan.partitions) do
			for _, b in ipairs(p.target) do assert(b ~= 0, "nothing left on broker 0") end
		end
		for _, b in ipairs(plan.brokers) do
			if b.broker == 0 then assert(b.replicas_after == 0 and b.leaders_after == 0) end
		end
		assert(plan.steps[#plan.steps]:find("unregister_broker(0)", 1, true))

		local demote = plan_reassignment{drain = {0}, leaders_only = true, topics = "d"}
		assert(demote.kind == "demote" and demote.moves == 0 and #demote.partitions == led)
		for _, p in ipairs(demote.partitions) do assert(p.target[2] == 0) end

		local leaders = plan_reassignment{topics = "d", leaders_only = true}
		assert(leaders.kind == "leaders" and leaders.moves == 0)
		local count = {}
		for _, b in ipairs(leaders.brokers) do count[#count + 1] = b.leaders_after end
		table.sort(count)
		-- kfake places replicas at random: where a broker holds fewer than
		-- its even share (2 of 6), no plan can spread leaders within 1, and
		-- the plan must still give it every partition it holds.
		local holds = {}
		for _, p in ipairs(describe_topics("d")[1].partitions) do
			for _, b in ipairs(p.replicas) do holds[b] = (holds[b] or 0) + 1 end
		end
		local even = true
		for _, b in ipairs(leaders.brokers) do
			if (holds[b.broker] or 0) < 2 then
				even = false
				assert(b.leaders_after == (holds[b.broker] or 0), "a broker short of its share leads all it holds")
			end
		end
		assert(not even or count[#count] - count[1] <= 1, "leaders spread: " .. table.concat(count, ","))
	`)
}

func TestPlanReassignmentBadOptions(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "o", partitions = 2}}`)
	for src, want := range map[string]string{
		`plan_reassignment{topics = "o", by = "disk"}`:                       `plan_reassignment: by: must be "count" or "bytes", got "disk"`,
		`plan_reassignment{brokers = {0, 1}}`:                                `plan_reassignment: topics: is required (the topics to plan), unless drain is given`,
		`plan_reassignment{topics = "o", replication_factor = 0}`:            `plan_reassignment: replication_factor: must be an integer between 1 and 32767, got 0`,
		`plan_reassignment{topics = "o", max_disk_usage = 2}`:                `plan_reassignment: max_disk_usage: must be a finite number between 0.01 and 1, got 2`,
		`plan_reassignment{topics = "o", leaders_only = true, by = "bytes"}`: `leaders_only moves no data`,
		`plan_reassignment{drain = {0}, partition_limit = 2}`:                `a drain moves every replica off the drained brokers`,
		`plan_reassignment{drain = {7}}`:                                     `broker 7 is not in the cluster`,
	} {
		re := e.runErr(src)
		assert.Contains(t, re.Message, want, src)
	}
}
