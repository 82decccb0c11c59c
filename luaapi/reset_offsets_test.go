package luaapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// committed reads group's committed offsets through the independent client
// as "topic[p]=offset" in topic/partition order.
func committed(t *testing.T, e *env, group string) string {
	t.Helper()
	fetched, err := e.adm.FetchOffsets(e.ctx(), group)
	require.NoError(t, err)
	var out []string
	for _, o := range fetched.Sorted() {
		require.NoError(t, o.Err)
		out = append(out, fmt.Sprintf("%s[%d]=%d", o.Topic, o.Partition, o.At))
	}
	return strings.Join(out, " ")
}

func TestResetOffsetsNamedTargets(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 3, 10)
	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {0: 5, 1: 6, 2: 7}})

	out := e.json(`return reset_offsets{group = "g", to = "earliest"}`)
	assert.Equal(t, `[{"current":5,"partition":0,"target":0,"topic":"events"},`+
		`{"current":6,"partition":1,"target":0,"topic":"events"},`+
		`{"current":7,"partition":2,"target":0,"topic":"events"}]`, out)
	assert.Equal(t, "events[0]=0 events[1]=0 events[2]=0", committed(t, e, "g"))

	e.run(`reset_offsets{group = "g", topics = "events", to = "LATEST"}`)
	assert.Equal(t, "events[0]=10 events[1]=10 events[2]=10", committed(t, e, "g"))

	// current: unchanged where committed, the end where not.
	groupCommit(t, e, "partial", map[string]map[int32]int64{"events": {1: 4}})
	e.run(`
		local r = reset_offsets{group = "partial", topics = {"events"}, to = "current"}
		assert(#r == 3 and r[1].current == -1 and r[1].target == 10 and r[2].current == 4 and r[2].target == 4)
	`)
	assert.Equal(t, "events[0]=10 events[1]=4 events[2]=10", committed(t, e, "partial"))

	// Start offsets count: earliest after delete_records.
	_, err := e.adm.DeleteRecords(e.ctx(), offsetsOf("events", 2, 3))
	require.NoError(t, err)
	e.run(`reset_offsets{group = "g", topics = {{topic = "events", partition = 2}}, to = "earliest"}`)
	assert.Equal(t, "events[0]=10 events[1]=10 events[2]=3", committed(t, e, "g"))
}

func TestResetOffsetsOffsetAndShiftClamp(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 10)
	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {0: 5, 1: 8}})

	e.run(`
		local r = reset_offsets{group = "g", to = {offset = 3}}
		assert(r[1].target == 3 and r[1].clamped == nil and r[2].target == 3)
	`)
	assert.Equal(t, "events[0]=3 events[1]=3", committed(t, e, "g"))

	e.run(`
		local r = reset_offsets{group = "g", to = {offset = 50}}
		assert(r[1].target == 10 and r[1].clamped == true, tostring(r[1].clamped))
	`)
	assert.Equal(t, "events[0]=10 events[1]=10", committed(t, e, "g"))

	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {0: 5, 1: 8}})
	e.run(`
		local r = reset_offsets{group = "g", to = {shift = -2}}
		assert(r[1].current == 5 and r[1].target == 3 and r[2].current == 8 and r[2].target == 6)
	`)
	assert.Equal(t, "events[0]=3 events[1]=6", committed(t, e, "g"))
	e.run(`
		local r = reset_offsets{group = "g", to = {shift = 5}}
		assert(r[1].target == 8 and r[1].clamped == nil and r[2].target == 10 and r[2].clamped == true)
		r = reset_offsets{group = "g", to = {shift = -100}}
		assert(r[1].target == 0 and r[1].clamped == true and r[2].target == 0 and r[2].clamped == true)
	`)
	assert.Equal(t, "events[0]=0 events[1]=0", committed(t, e, "g"))

	// A shift needs a commit on every partition: none is changed otherwise.
	groupTopic(t, e, "more", 1, 10)
	e.run(`
		local ok, err = pcall(reset_offsets, {group = "g", topics = {"events", "more"}, to = {shift = 1}})
		assert(not ok and err.code == "NOT_FOUND" and err.resource == "more[0]", tostring(err))
		assert(err.message == "no committed offset to shift from (1 of 3 partitions have no target; nothing was committed: pass partial=true for the plan)", err.message)
		local r = reset_offsets{group = "g", topics = {"events", "more"}, to = {shift = 1}, partial = true}
		assert(#r == 3 and r[1].error == nil and r[1].target == 1)
		assert(r[3].target == -1 and r[3].current == -1 and r[3].error.code == "NOT_FOUND")
	`)
	assert.Equal(t, "events[0]=0 events[1]=0", committed(t, e, "g"), "nothing committed when a row failed")
}

func TestResetOffsetsByTime(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "timed")
	require.NoError(t, err)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	produceAt(t, e, "timed", 0, 5, t0)
	produceAt(t, e, "timed", 0, 5, t0.Add(time.Hour))
	groupCommit(t, e, "g", map[string]map[int32]int64{"timed": {0: 9}})

	e.run(fmt.Sprintf(`local r = reset_offsets{group = "g", to = {timestamp = %d}}; assert(r[1].target == 5, r[1].target)`, t0.Add(30*time.Minute).UnixMilli()))
	assert.Equal(t, "timed[0]=5", committed(t, e, "g"))
	e.run(`local r = reset_offsets{group = "g", to = {datetime = "2026-03-01T10:00:00.001Z"}}; assert(r[1].target == 5, r[1].target)`)
	e.run(`local r = reset_offsets{group = "g", to = {datetime = "2026-03-01T11:00:00+01:00"}}; assert(r[1].target == 0, r[1].target)`)
	assert.Equal(t, "timed[0]=0", committed(t, e, "g"))
	e.run(`local r = reset_offsets{group = "g", to = {timestamp = kafka.now() + 3600000}}; assert(r[1].target == 10, r[1].target)`)
	assert.Equal(t, "timed[0]=10", committed(t, e, "g"))

	// Before the first record (still there): earliest.
	_, err = e.adm.DeleteRecords(e.ctx(), offsetsOf("timed", 0, 2))
	require.NoError(t, err)
	e.run(`local r = reset_offsets{group = "g", to = {timestamp = 0}}; assert(r[1].target == 2, r[1].target)`)
	assert.Equal(t, "timed[0]=2", committed(t, e, "g"))

	// Durations are relative to now.
	_, err = e.adm.CreateTopic(e.ctx(), 1, 1, nil, "recent")
	require.NoError(t, err)
	produceAt(t, e, "recent", 0, 4, time.Now().Add(-2*time.Hour))
	produceAt(t, e, "recent", 0, 3, time.Now())
	for _, d := range []string{"-1h", "1h", "-PT1H", "PT30M", "pt1h"} {
		e.run(fmt.Sprintf(`local r = reset_offsets{group = "recent-g", topics = "recent", to = {duration = %q}}; assert(r[1].target == 4, r[1].target)`, d))
		assert.Equal(t, "recent[0]=4", committed(t, e, "recent-g"), d)
	}
	e.run(`local r = reset_offsets{group = "recent-g", topics = "recent", to = {duration = "P1D"}}; assert(r[1].target == 0, r[1].target)`)
	assert.Equal(t, "recent[0]=0", committed(t, e, "recent-g"))
}

func TestResetOffsetsFromGroupAndFile(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 3, 10)
	groupTopic(t, e, "other", 1, 10)
	groupCommit(t, e, "src", map[string]map[int32]int64{"events": {0: 1, 2: 7}, "other": {0: 99}})

	// Without topics: exactly the source group's partitions (99 clamped).
	e.run(`
		local r = reset_offsets{group = "copy", to = {group = "src"}}
		assert(#r == 3 and r[1].current == -1 and r[1].target == 1 and r[2].target == 7)
		assert(r[3].topic == "other" and r[3].target == 10 and r[3].clamped == true)
	`)
	assert.Equal(t, "events[0]=1 events[2]=7 other[0]=10", committed(t, e, "copy"))
	// With topics, every partition needs the source's offset.
	e.run(`
		local ok, err = pcall(reset_offsets, {group = "copy", topics = "events", to = {group = "src"}})
		assert(not ok and err.code == "NOT_FOUND" and err.resource == "events[1]", tostring(err))
		assert(err.message:find("group src has no offset for this partition", 1, true), err.message)
	`)
	re := e.runErr(`reset_offsets{group = "copy", to = {group = "nobody"}}`)
	assert.Equal(t, "NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "group nobody has no committed offsets to copy")

	dir := t.TempDir()
	file := filepath.Join(dir, "offsets.csv")
	require.NoError(t, os.WriteFile(file, []byte("topic,partition,offset\nevents,0,4\n# a comment\nevents, 1, 5\n\nevents,2,60\n"), 0o600))
	out := e.json(fmt.Sprintf(`return reset_offsets{group = "from-file", to = {file = %q}}`, file))
	assert.Equal(t, `[{"current":-1,"partition":0,"target":4,"topic":"events"},`+
		`{"current":-1,"partition":1,"target":5,"topic":"events"},`+
		`{"clamped":true,"current":-1,"partition":2,"target":10,"topic":"events"}]`, out)
	assert.Equal(t, "events[0]=4 events[1]=5 events[2]=10", committed(t, e, "from-file"))

	// No header; a partition the cluster does not have fails before any commit.
	require.NoError(t, os.WriteFile(file, []byte("events,0,1\nevents,9,1\n"), 0o600))
	re = e.runErr(fmt.Sprintf(`reset_offsets{group = "from-file", to = {file = %q}}`, file))
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Contains(t, re.Message, "events[9]")
	assert.Equal(t, "events[0]=4 events[1]=5 events[2]=10", committed(t, e, "from-file"))

	for content, want := range map[string]string{
		"events,0\n":                "offsets.csv: line 1: want topic,partition,offset, got 2 field(s)",
		"events,x,1\n":              `line 1: partition must be a non-negative integer, got "x"`,
		"events,0,1\nevents,0,-3\n": `line 2: offset must be a non-negative integer, got "-3"`,
		"events,0,1\nevents,0,2\n":  "line 2: events[0] is given twice",
		"topic,partition,offset\n":  "no offsets in the file",
	} {
		require.NoError(t, os.WriteFile(file, []byte(content), 0o600))
		re := e.runErr(fmt.Sprintf(`reset_offsets{group = "from-file", to = {file = %q}}`, file))
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, content)
		assert.Contains(t, re.Message, "reset_offsets: to: file: ", content)
		assert.Contains(t, re.Message, want, content)
	}
	re = e.runErr(fmt.Sprintf(`reset_offsets{group = "from-file", to = {file = %q}}`, filepath.Join(dir, "missing.csv")))
	assert.Contains(t, re.Message, "reset_offsets: to: file: open ")
}

func TestResetOffsetsDryRun(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 10)
	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {0: 5, 1: 6}})
	e.run(`
		local r = reset_offsets{group = "g", to = "earliest", dry_run = true}
		assert(#r == 2 and r[1].dry_run == true and r[1].current == 5 and r[1].target == 0)
		kafka.dry_run(true)
		r = reset_offsets{group = "g", to = {offset = 99}}
		assert(r[2].dry_run == true and r[2].target == 10 and r[2].clamped == true)
		r = reset_offsets{group = "brand-new", topics = "events", to = "latest"}
		assert(r[1].current == -1 and r[1].target == 10)
		kafka.dry_run(false)
	`)
	assert.Equal(t, "events[0]=5 events[1]=6", committed(t, e, "g"))
	assert.NotContains(t, groupNames(t, e), "brand-new")
	stderr := e.stderr.String()
	assert.Contains(t, stderr, "dry-run: reset_offsets: reset g events[0]: 5 -> 0 (on ")
	assert.Contains(t, stderr, "dry-run: reset_offsets: reset g events[1]: 6 -> 10 (clamped) (on ")

	// dry_run=false is a real reset, even right after dry runs.
	e.run(`reset_offsets{group = "g", to = "earliest", dry_run = false}`)
	assert.Equal(t, "events[0]=0 events[1]=0", committed(t, e, "g"))
}

func TestResetOffsetsLiveGroup(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 10)
	groupCommit(t, e, "live", map[string]map[int32]int64{"events": {0: 5, 1: 5}})
	groupMember(t, e, "live", false, "events")

	for _, src := range []string{
		`reset_offsets{group = "live", to = "earliest"}`,
		`reset_offsets{group = "live", to = "earliest", dry_run = true}`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "NON_EMPTY_GROUP", re.Code, src)
		assert.Contains(t, re.Message, "group live has 1 live member(s): stop its consumers first (or force it: force=true in reset_offsets, --force in the runbooks, removes the members)", src)
	}
	assert.Equal(t, "events[0]=5 events[1]=5", committed(t, e, "live"))

	// force with a dry run plans the removal and changes nothing.
	e.run(`
		local r = reset_offsets{group = "live", to = "earliest", force = true, dry_run = true}
		assert(#r == 2 and r[1].target == 0 and r[1].dry_run == true)
	`)
	assert.Contains(t, e.stderr.String(), "dry-run: reset_offsets: remove the 1 live member(s) of group live first (force=true)")
	ids, _ := memberIDs(t, e, "live")
	assert.Len(t, ids, 1)
	assert.Equal(t, "events[0]=5 events[1]=5", committed(t, e, "live"))
}

func TestResetOffsetsForceRemovesStaleMembers(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 10)
	groupCommit(t, e, "crashed", map[string]map[int32]int64{"events": {0: 5, 1: 5}})
	staleStaticMembers(t, e, "crashed", "events", "pod-1")

	re := e.runErr(`reset_offsets{group = "crashed", to = "earliest"}`)
	assert.Equal(t, "NON_EMPTY_GROUP", re.Code)
	e.run(`
		local r = reset_offsets{group = "crashed", to = "earliest", force = true}
		assert(#r == 2 and r[1].error == nil and r[1].target == 0)
	`)
	assert.Equal(t, "events[0]=0 events[1]=0", committed(t, e, "crashed"))
	ids, _ := memberIDs(t, e, "crashed")
	assert.Empty(t, ids)
}

func TestResetOffsetsBadArguments(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 1, 3)
	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {0: 1}})
	requests := countRequests(e.cluster)
	for src, want := range map[string]string{
		`reset_offsets{group = "g", to = "yesterday"}`:                                               `reset_offsets: to: unknown target "yesterday" (want earliest, latest, current, {offset=}, {shift=}, {timestamp=}, {datetime=}, {duration=}, {group=}, {file=})`,
		`reset_offsets{group = "g", to = "earlist"}`:                                                 `(did you mean "earliest"?)`,
		`reset_offsets{group = "g"}`:                                                                 `reset_offsets: to: is required`,
		`reset_offsets{group = "g", to = 5}`:                                                         `reset_offsets: to: must be one of earliest, latest, current, {offset=}, {shift=}, {timestamp=}, {datetime=}, {duration=}, {group=}, {file=}, got 5`,
		`reset_offsets{group = "g", to = {}}`:                                                        `reset_offsets: to: must have exactly one of offset=, shift=, timestamp=, datetime=, duration=, group=, file=, got 0 keys`,
		`reset_offsets{group = "g", to = {offset = 1, shift = 1}}`:                                   `got 2 keys`,
		`reset_offsets{group = "g", to = {offset = -1}}`:                                             `reset_offsets: to: offset: must be an offset between 0 and 9223372036854775807, got -1`,
		`reset_offsets{group = "g", to = {offset = 2^63}}`:                                           `reset_offsets: to: offset: must be an offset between 0 and 9223372036854775807, got 9.223372036854776e+18`,
		`reset_offsets{group = "g", to = {shift = 1.5}}`:                                             `reset_offsets: to: shift: must be a shift between -9007199254740992 and 9007199254740992, got 1.5`,
		`reset_offsets{group = "g", to = {shift = 2^60}}`:                                            `reset_offsets: to: shift: must be a shift between`,
		`reset_offsets{group = "g", to = {timestamp = 0/0}}`:                                         `reset_offsets: to: timestamp: must be a timestamp in ms between 0 and`,
		`reset_offsets{group = "g", to = {seconds = 1}}`:                                             `reset_offsets: to: unknown key "seconds"`,
		`reset_offsets{group = "g", to = {datetime = "2026-03-01 10:00"}}`:                           `reset_offsets: to: datetime: must be an RFC 3339 time with a zone like "2026-11-30T10:00:00Z", got "2026-03-01 10:00"`,
		`reset_offsets{group = "g", to = {datetime = "2026-03-01T10:00:00"}}`:                        `datetime: must be an RFC 3339 time with a zone`,
		`reset_offsets{group = "g", to = {datetime = "1969-12-31T23:00:00Z"}}`:                       `reset_offsets: to: datetime: is before 1970-01-01T00:00:00Z, got 1969-12-31T23:00:00Z`,
		`reset_offsets{group = "g", to = {duration = "yesterday"}}`:                                  `reset_offsets: to: duration: "yesterday" is not a duration (want Go syntax like "-1h30m" or ISO-8601 like "PT1H")`,
		`reset_offsets{group = "g", to = {duration = "+1h"}}`:                                        `reset_offsets: to: duration: "+1h": a reset cannot go into the future`,
		`reset_offsets{group = "g", to = {duration = "P36500D"}}`:                                    `reset_offsets: to: duration: is before 1970-01-01T00:00:00Z`,
		`reset_offsets{group = "g", to = {group = ""}}`:                                              `reset_offsets: to: group: must not be empty`,
		`reset_offsets{to = "earliest"}`:                                                             `reset_offsets: group: is required`,
		`reset_offsets{group = "", to = "earliest"}`:                                                 `reset_offsets: group: must not be empty`,
		`reset_offsets{group = "g", to = "earliest", topic = "events"}`:                              `reset_offsets: unknown key "topic" (did you mean "topics"?) (allowed: group, to, topics, dry_run, force, partial)`,
		`reset_offsets{group = "g", to = "earliest", force = "yes"}`:                                 `reset_offsets: force: must be true or false, got "yes"`,
		`reset_offsets{group = "g", to = "earliest", dry_run = 1}`:                                   `reset_offsets: dry_run: must be true or false, got 1`,
		`reset_offsets{group = "g", to = "earliest", partial = "true"}`:                              `reset_offsets: partial: must be true or false, got "true"`,
		`reset_offsets{group = "g", to = "earliest", topics = {{topic = "events"}}}`:                 `reset_offsets: topics #1: partition: is required`,
		`reset_offsets{group = "g", to = "earliest", topics = {topic = "events", partition = 2^32}}`: `reset_offsets: topics: partition: must be a partition between 0 and 2147483647, got 4294967296`,
		`reset_offsets("g", "earliest")`:                                                             `reset_offsets: takes at most 1 argument, reset_offsets{group=, to=, [topics=], [dry_run=], [force=], [partial=]}, got 2`,
		`reset_offsets("g")`:                                                                         `reset_offsets: takes one table {group=, to=, [topics=], [dry_run=], [force=], [partial=]}, got "g"`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "refused calls send nothing")
	// Refused by the group's state, not by its arguments.
	re := e.runErr(`reset_offsets{group = "nothing-committed", to = "earliest"}`)
	assert.Equal(t, "NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "reset_offsets: nothing-committed: NOT_FOUND: group nothing-committed has no committed offsets: name the topics to reset")
	re = e.runErr(`reset_offsets{group = "g", topics = "ghost", to = "earliest"}`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Equal(t, "events[0]=1", committed(t, e, "g"), "bad arguments change nothing")
}

func TestResetOffsetsForceOnRunningConsumer(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 10)
	groupCommit(t, e, "live", map[string]map[int32]int64{"events": {0: 5, 1: 5}})
	groupMember(t, e, "live", false, "events")
	old, _ := memberIDs(t, e, "live")
	require.Len(t, old, 1)

	// The member is removed, the group is empty for a moment, the commit
	// lands; the consumer learns at its next heartbeat and rejoins.
	e.run(`
		local r = reset_offsets{group = "live", to = "earliest", force = true}
		assert(#r == 2 and r[1].error == nil and r[2].error == nil)
	`)
	assert.Equal(t, "events[0]=0 events[1]=0", committed(t, e, "live"))
	require.Eventually(t, func() bool {
		ids, _ := memberIDs(t, e, "live")
		return len(ids) == 1 && ids[0] != old[0]
	}, 20*time.Second, 50*time.Millisecond, "the consumer never rejoined")
}

// A refused destructive call is refused before the REPL asks to confirm it
// and before the audit log hears of it.
func TestResetOffsetsRefusedBeforeConfirmAndAudit(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := auditlog.Open(auditPath)
	require.NoError(t, err)
	asked := 0
	e := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit}, Confirm: func(string) bool { asked++; return true }})
	groupTopic(t, e, "events", 2, 10)
	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {0: 5, 1: 6}})
	for _, src := range []string{
		`reset_offsets{group = "g", to = "earliest", dry_run = "false"}`,
		`reset_offsets{group = "g", to = {offset = 2^63}}`,
		`reset_offsets{group = "g", to = "earliest", topics = {topic = "events", partition = 2^32}}`,
		`delete_groups({"g"}, {if_exists = "yes"})`,
		`delete_group_offsets("g", {{topic = "events", partition = 2^32 + 1}})`,
		`remove_group_members("g", {{member_id = 1}})`,
		`commit_offsets("g", {{topic = "events", partition = 2^32, offset = 0}})`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
	}
	assert.Zero(t, asked, "nothing to confirm")
	raw, err := os.ReadFile(auditPath)
	require.NoError(t, err)
	assert.Empty(t, string(raw), "a refused call writes no audit line")
	assert.Equal(t, "events[0]=5 events[1]=6", committed(t, e, "g"))
	assert.Equal(t, []string{"g"}, groupNames(t, e))
}
