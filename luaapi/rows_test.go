package luaapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// lag and lag_status: one row per group with summary, rows one at a time
// with iterate, the same numbers as the full rows, and the groups chosen
// by the filters.
func TestLagSummaryAndIterationFromLua(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 3, 10)
	groupTopic(t, e, "audit", 1, 4)
	groupCommit(t, e, "idle", map[string]map[int32]int64{"events": {0: 10, 1: 4}})
	groupCommit(t, e, "live", map[string]map[int32]int64{"audit": {0: 1}})
	groupCommit(t, e, "other", map[string]map[int32]int64{"audit": {0: 4}})

	assert.Equal(t, `[{"group":"idle","lagging":2,"max_lag":10,"partition_count":3,"records_lost":0,"state":"Empty","total_lag":16,"worst_partition":2,"worst_topic":"events"},`+
		`{"group":"live","lagging":1,"max_lag":3,"partition_count":1,"records_lost":0,"state":"Empty","total_lag":3,"worst_partition":0,"worst_topic":"audit"},`+
		`{"group":"other","lagging":0,"max_lag":0,"partition_count":1,"records_lost":0,"state":"Empty","total_lag":0}]`,
		e.json(`return lag(nil, {summary = true})`))
	// The summaries agree with kadm's lag of the same groups.
	lags, err := e.adm.Lag(e.ctx(), "idle", "live", "other")
	require.NoError(t, err)
	assert.Equal(t, int64(16), lags["idle"].Lag.Total())
	assert.Equal(t, int64(3), lags["live"].Lag.Total())

	// Iterated, the rows are the table's, one at a time; nothing kept.
	e.run(`
		local function same(a, b) return kafka.json.encode(a) == kafka.json.encode(b) end
		for _, opts in ipairs({{}, {summary = true}, {time = true}, {summary = true, sort = "lag", only_lagging = true}}) do
			local whole, i = lag(nil, opts), 0
			local it = {}
			for k, v in pairs(opts) do it[k] = v end
			it.iterate = true
			for g in lag(nil, it) do
				i = i + 1
				if opts.time then
					assert(g.max_lag_ms ~= nil and g.group == whole[i].group, g.group) -- lag_ms moves with the clock
				elseif opts.sort == nil then
					assert(same(g, whole[i]), g.group .. ": " .. kafka.json.encode(g) .. " ~= " .. kafka.json.encode(whole[i]))
				end
			end
			assert(i == #whole, i)
		end
		local n = 0
		for g in lag_status(nil, {summary = true, iterate = true}) do
			n = n + 1
			assert(g.worst == nil and g.partitions == nil and g.max_lag ~= nil, g.group)
		end
		assert(n == 3)
		local s = lag_status(nil, {summary = true})
		assert(s[1].group == "idle" and s[1].max_lag == 10 and s[1].worst_topic == "events" and s[1].worst_partition == 2, kafka.json.encode(s[1]))
		assert(#lag_status()[1].worst > 0, "without summary the worst partitions are listed")
	`)

	// The filters choose by name and state before anything else.
	e.run(`
		local names = {}
		for g in lag(nil, {match = "^(idle|live)$", exclude = "^l", iterate = true}) do names[#names + 1] = g.group end
		assert(#names == 1 and names[1] == "idle", table.concat(names, ","))
		assert(#lag(nil, {states = {"stable"}}) == 0)
		assert(#lag_status(nil, {states = {"empty"}, match = "^[io]"}) == 2)
	`)

	// A failed group: the loop gets every row, the failed one with its
	// error, then the iterator raises; with partial it does not.
	re := e.runErr(`
		local seen = {}
		for g in lag({"idle", "ghost", "live"}, {iterate = true}) do seen[#seen + 1] = g.group .. "=" .. tostring(g.error ~= nil) end
		error("not raised: " .. table.concat(seen, ","))`)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "lag: ghost: GROUP_ID_NOT_FOUND")
	assert.Contains(t, re.Message, "1 of 3 groups failed in describe_groups: ghost")
	e.run(`
		local seen = {}
		for g in lag({"idle", "ghost"}, {iterate = true, summary = true, partial = true}) do seen[#seen + 1] = g end
		assert(#seen == 2 and seen[1].group == "ghost" and seen[1].error.code == "GROUP_ID_NOT_FOUND" and seen[1].failed_in == "describe_groups", kafka.json.encode(seen))
	`)

	re = e.runErr(`lag(nil, {summary = true, observe = 1})`)
	assert.Contains(t, re.Message, "lag: options: observe: watches every partition's commits at once: not with summary or iterate")
	re = e.runErr(`lag_status(nil, {summary = true, partitions = true})`)
	assert.Contains(t, re.Message, "lag_status: options: partitions: lists every partition's verdict: not with summary")
	re = e.runErr(`lag(nil, {match = "("})`)
	assert.Contains(t, re.Message, "lag: options: match")
	re = e.runErr(`lag_status(nil, {states = {"Sleeping"}})`)
	assert.Contains(t, re.Message, "lag_status: options: states")
}

// describe_topics streamed: the same topics as the table, a page at a
// time, the filters applied as they come; the cluster's topics checked
// through kadm.
func TestDescribeTopicsIterated(t *testing.T) {
	e := newEnv(t)
	for i := range 30 {
		_, err := e.adm.CreateTopic(e.ctx(), int32(1+i%4), 1, nil, fmt.Sprintf("t-%02d", i))
		require.NoError(t, err)
	}
	td, err := e.adm.ListTopics(e.ctx())
	require.NoError(t, err)
	partitions := 0
	for _, d := range td {
		partitions += len(d.Partitions)
	}
	got := e.run(fmt.Sprintf(`
		local whole, n, parts = describe_topics(), 0, 0
		for t in describe_topics(nil, {iterate = true}) do
			n = n + 1
			assert(kafka.json.encode(t) == kafka.json.encode(whole[n]), t.name)
			parts = parts + #t.partitions
		end
		assert(n == #whole, n)
		local kept = {}
		for t in describe_topics(nil, {iterate = true, match = "^t-0", exclude = "5$"}) do kept[#kept + 1] = t.name end
		assert(table.concat(kept, ",") == "t-00,t-01,t-02,t-03,t-04,t-06,t-07,t-08,t-09", table.concat(kept, ","))
		assert(#describe_topics(nil, {match = "^t-1"}) == 10)
		local named = {}
		for t in describe_topics({"t-03", "t-01"}, {iterate = true}) do named[#named + 1] = t.name .. ":" .. #t.partitions end
		assert(table.concat(named, ",") == "t-01:2,t-03:4", table.concat(named, ","))
		return parts`))
	assert.Equal(t, lua.LNumber(partitions), got)
	re := e.runErr(`for t in describe_topics({"t-01", "nope"}, {iterate = true}) do end`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Contains(t, re.Message, "1 of 2 topics failed: nope")
}

// list_offsets of every partition streamed: every topic when topics is
// nil, the same rows as the table, the filters choosing topics before
// any ListOffsets; the end offsets checked through kadm.
func TestListOffsetsIterated(t *testing.T) {
	e := newEnv(t)
	for i := range 6 {
		_, err := e.adm.CreateTopics(e.ctx(), 3, 1, nil, fmt.Sprintf("o-%d", i))
		require.NoError(t, err)
	}
	e.run(`for i = 0, 5 do for p = 0, 2 do for _ = 1, i + p do produce("o-" .. i, {value = "x", partition = p}) end end end`)
	ends, err := e.adm.ListEndOffsets(e.ctx(), "o-0", "o-1", "o-2", "o-3", "o-4", "o-5")
	require.NoError(t, err)
	var sum int64
	ends.Each(func(o kadm.ListedOffset) { sum += o.Offset })
	got := e.run(`
		local whole, n, sum = list_offsets({"o-0", "o-1", "o-2", "o-3", "o-4", "o-5"}), 0, 0
		for o in list_offsets(nil, "latest", {iterate = true, match = "^o-"}) do
			n = n + 1
			assert(kafka.json.encode(o) == kafka.json.encode(whole[n]), o.topic .. o.partition)
			sum = sum + o.offset
		end
		assert(n == #whole and n == 18, n)
		local kept = list_offsets(nil, "earliest", {exclude = "^o-[0-3]$|^_"})
		assert(#kept == 6 and kept[1].topic == "o-4" and kept[6].topic == "o-5" and kept[6].offset == 0, #kept)
		return sum`)
	assert.Equal(t, lua.LNumber(sum), got)
	re := e.runErr(`for o in list_offsets({"o-1", "nope"}, "latest", {iterate = true}) do end`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Contains(t, re.Message, "1 of 4 partitions failed: nope")
	re = e.runErr(`list_offsets({o = {[0] = 1}}, nil, {iterate = true})`)
	assert.Contains(t, re.Message, "list_offsets: topics: is a topic or topics with iterate")
}

// A read that failed for some groups says, in the error it raises, in
// which phase they failed (the CronJob's log has no rows to look at):
// one coordinator timing out on its share of OffsetFetch, in the table
// form and in an iteration, for lag and lag_status.
func TestLagRaisedErrorNamesThePhase(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	e := newEnvOn(t, c, Options{Config: engine.Config{Timeout: 300 * time.Millisecond}})
	groupTopic(t, e, "events", 1, 10)
	for i := range 6 {
		groupCommit(t, e, fmt.Sprintf("g%d", i), map[string]map[int32]int64{"events": {0: 1}})
	}
	slow := c.CoordinatorFor("g0")
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Nodes: []int32{slow}, Err: kerr.RequestTimedOut, Count: -1})
	for _, src := range []string{
		`lag()`, `lag_status()`,
		`for _ in lag(nil, {iterate = true}) do end`, `for _ in lag_status(nil, {summary = true, iterate = true}) do end`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "TIMEOUT", re.Code, src)
		assert.Regexp(t, `\(\d of 6 (groups )?failed in fetch_offsets: g0`, re.Message, src)
	}
}
