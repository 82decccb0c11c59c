package luaapi

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
)

// confirmEnv is an env whose destructive calls ask; the questions are
// recorded and answered no.
func confirmEnv(t *testing.T) (*env, *[]string) {
	e := newEnv(t)
	var asked []string
	e.rt.SetConfirm(func(q string) bool { asked = append(asked, q); return false })
	return e, &asked
}

var fullArgsRE = regexp.MustCompile(`full arguments: (\S+)`)

func TestConfirmShortCallIsAskedAsTyped(t *testing.T) {
	e, asked := confirmEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "doomed")
	require.NoError(t, err)
	re := e.runErr(`delete_topics{"doomed"}`)
	assert.Contains(t, re.Message, "not confirmed")
	require.Len(t, *asked, 1)
	assert.Regexp(t, `^delete_topics\(\["doomed"\]\) on \S+`, (*asked)[0])
	assert.NotContains(t, (*asked)[0], "\n")
	assert.Contains(t, e.topics(), "doomed", "declined: nothing deleted")
}

func TestConfirmLongCallIsSummarised(t *testing.T) {
	e, asked := confirmEnv(t)
	e.run(`local names = {} for i = 1, 45 do names[i] = string.format("t-%02d", i) end
		pcall(delete_topics, names)`)
	require.Len(t, *asked, 1)
	q := (*asked)[0]
	lines := strings.Split(q, "\n")
	assert.Regexp(t, `^delete_topics on \S+$`, lines[0])
	assert.Equal(t, "  names: 45", lines[1])
	assert.Equal(t, `    "t-01"`, lines[2])
	assert.Equal(t, `    "t-05"`, lines[6])
	assert.Equal(t, "    and 40 more", lines[7])
	assert.NotContains(t, q, "t-06", "only the first five are shown")
	assert.Regexp(t, `^delete_topics\(45 names\) on \S+$`, lines[len(lines)-1], "the question")

	// The full list is in a file only the user can read.
	m := fullArgsRE.FindStringSubmatch(q)
	require.NotNil(t, m, q)
	t.Cleanup(func() { os.Remove(m[1]) })
	fi, err := os.Stat(m[1])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	data, err := os.ReadFile(m[1])
	require.NoError(t, err)
	var args []any
	require.NoError(t, json.Unmarshal(data, &args))
	require.Len(t, args, 1)
	assert.Len(t, args[0], 45)
	assert.Equal(t, "t-45", args[0].([]any)[44])
}

func TestConfirmReassignmentPlanCountsPerTopic(t *testing.T) {
	e, asked := confirmEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 30, 3, nil, "orders")
	require.NoError(t, err)
	_, err = e.adm.CreateTopic(e.ctx(), 15, 3, nil, "payments")
	require.NoError(t, err)
	e.run(`local rows = {}
		for p = 0, 29 do rows[#rows + 1] = {topic = "orders", partition = p, replicas = {0, 1, 2}} end
		for p = 0, 14 do rows[#rows + 1] = {topic = "payments", partition = p, replicas = {2, 1, 0}} end
		local ok, err = pcall(alter_partition_reassignments, rows)
		assert(not ok and err.code == "CANCELED")`)
	require.Len(t, *asked, 1)
	q := (*asked)[0]
	assert.Contains(t, q, "\n  rows: 45 partitions\n    45 partitions of 2 topics: orders 30, payments 15\n")
	assert.Contains(t, q, `{"partition":0,"replicas":[0,1,2],"topic":"orders"}`)
	assert.Contains(t, q, "and 40 more")
	assert.Contains(t, q, "\nalter_partition_reassignments(45 partitions) on ")
	if m := fullArgsRE.FindStringSubmatch(q); assert.NotNil(t, m) {
		os.Remove(m[1])
	}
	// Declined: no reassignment was sent.
	assert.Equal(t, "0", fmt.Sprint(e.run(`return #list_partition_reassignments()`)))
}

func TestConfirmQuestionShapes(t *testing.T) {
	noFile := func([]any) (string, error) { return "/tmp/x.json", nil }
	// A plan: a record whose partitions array is summarised.
	rows := []any{}
	for p := range 12 {
		rows = append(rows, map[string]any{"topic": "orders", "partition": float64(p), "current": []any{0.0}, "target": []any{1.0}})
	}
	plan := map[string]any{"moves": 12.0, "leader_changes": 3.0, "partitions": rows}
	q := confirmQuestion("alter_partition_reassignments", "cluster c (b:9092)", []string{"rows", "options"},
		[]any{plan, map[string]any{"throttle": 1000.0}}, false, noFile)
	assert.Equal(t, `alter_partition_reassignments on cluster c (b:9092)
  rows: {leader_changes=3, moves=12, partitions=12 partitions}
    partitions: 12 partitions of 1 topic: orders 12
    partitions: {"current":[0],"partition":0,"target":[1],"topic":"orders"}
    partitions: {"current":[0],"partition":1,"target":[1],"topic":"orders"}
    partitions: {"current":[0],"partition":2,"target":[1],"topic":"orders"}
    partitions: {"current":[0],"partition":3,"target":[1],"topic":"orders"}
    partitions: {"current":[0],"partition":4,"target":[1],"topic":"orders"}
    partitions: and 7 more
  options: {"throttle":1000}
  full arguments: /tmp/x.json
alter_partition_reassignments({leader_changes=3, moves=12, partitions=12 partitions}, {"throttle":1000}) on cluster c (b:9092)`, q)

	// --verbose: the arguments in full, no file.
	q = confirmQuestion("delete_topics", "c", []string{"names"}, []any{strings.Split(strings.Repeat("abcdefghij,", 20), ",")},
		true, func([]any) (string, error) { t.Fatal("no file under --verbose"); return "", nil })
	assert.Contains(t, q, `full arguments: ["abcdefghij","abcdefghij",`)

	// Many topics: the biggest five are named.
	var parts []any
	for i := range 8 {
		for p := 0; p <= i; p++ {
			parts = append(parts, map[string]any{"topic": fmt.Sprintf("t%d", i), "partition": float64(p), "offset": 1.0})
		}
	}
	q = confirmQuestion("delete_records", "c", []string{"rows"}, []any{parts}, false, noFile)
	assert.Contains(t, q, "36 partitions of 8 topics: t7 8, t6 7, t5 6, t4 5, t3 4, and 3 more topics")
}

// A secret argument never reaches the question, nor its file.
func TestConfirmRedactsSecrets(t *testing.T) {
	e, asked := confirmEnv(t)
	e.run(`pcall(expire_delegation_token, "aHVudGVyMi1zZWNyZXQ=")`)
	require.Len(t, *asked, 1)
	assert.NotContains(t, (*asked)[0], "aHVudGVyMi1zZWNyZXQ=")
	assert.Contains(t, (*asked)[0], `expire_delegation_token("***")`)

	args := []any{redact.Value(map[string]any{"sasl_password": "hunter2", "name": strings.Repeat("x", 200)})}
	var written []any
	q := confirmQuestion("f", "c", nil, args, false, func(a []any) (string, error) { written = a; return "f", nil })
	assert.NotContains(t, q, "hunter2")
	b, _ := json.Marshal(written)
	assert.NotContains(t, string(b), "hunter2")
	assert.Contains(t, string(b), "xxxx")
}
