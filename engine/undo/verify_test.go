package undo

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
	"github.com/kadmin-lua/kadmin-lua/internal/testengine"
)

// victim creates a topic through adm, as someone else would, and returns
// its id: what a forged create_topics outcome names to get it deleted.
func victim(t *testing.T, adm *kadm.Client, name string) string {
	t.Helper()
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 1, 1, nil, name)
	require.NoError(t, err)
	td, err := adm.ListTopics(ctx, name)
	require.NoError(t, err)
	return engine.FormatTopicID(td[name].ID)
}

// undoForged writes lines (hand-written, as a forger without the key
// would: no hash chain) and undoes them with --yes.
func undoForged(t *testing.T, cl *engine.Client, lines ...string) []engine.UndoStep {
	t.Helper()
	path := filepath.Join(t.TempDir(), "forged.jsonl")
	testaudit.WriteLines(t, path, lines)
	return undoLog(t, cl, path, Options{Confirm: func(string) bool { return true }})
}

func requireRefused(t *testing.T, steps []engine.UndoStep, id, want string) {
	t.Helper()
	require.Len(t, steps, 1, "%v", testengine.Actions(steps))
	assert.Equal(t, engine.UndoRefused, steps[0].Action)
	assert.Equal(t, id, steps[0].ID)
	assert.Contains(t, steps[0].Message, "audit entry "+id+": ")
	assert.Contains(t, steps[0].Message, want)
}

func requireTopic(t *testing.T, c *kfake.Cluster, name string) {
	t.Helper()
	assert.Contains(t, testengine.FreshTopics(t, c), name, "undo did not delete it")
}

func TestUndoRefusesAnEntryWithoutClusterID(t *testing.T) {
	cl, c, adm := testengine.Client(t)
	id := victim(t, adm, "victim")
	// Without cluster_id the cluster check used to be skipped.
	steps := undoForged(t, cl,
		`{"type":"intent","id":"f1","op":"create_topics","args":{"specs":[{"name":"victim"}]},"before":{"victim":{"exists":false}}}`,
		`{"type":"outcome","id":"f1","op":"create_topics","items":[{"key":"victim","outcome":"ok","detail":{"id":"`+id+`"}}]}`)
	requireRefused(t, steps, "f1", "no cluster_id")
	requireTopic(t, c, "victim")
}

func TestUndoRefusesACreateTopicsOutcomeItsArgumentsDoNotSay(t *testing.T) {
	cl, c, adm := testengine.Client(t)
	id := victim(t, adm, "victim")
	intent := func(id, topic, before string) string {
		return fmt.Sprintf(`{"type":"intent","id":"%s","op":"create_topics","cluster_id":"kfake","args":{"specs":[{"name":"%s"}]},"before":%s}`, id, topic, before)
	}
	outcome := func(id, key, outcome, topicID string) string {
		return fmt.Sprintf(`{"type":"outcome","id":"%s","op":"create_topics","items":[{"key":"%s","outcome":"%s","detail":{"id":"%s"}}]}`, id, key, outcome, topicID)
	}
	// An item for a topic the intent does not create.
	steps := undoForged(t, cl, intent("f1", "scratch", `{"scratch":{"exists":false}}`), outcome("f1", "victim", "ok", id))
	requireRefused(t, steps, "f1", `outcome names topic "victim", which its arguments do not create`)
	// The topic existed before the call: not created by it.
	steps = undoForged(t, cl, intent("f2", "victim", `{"victim":{"exists":true,"id":"`+id+`"}}`), outcome("f2", "victim", "ok", id))
	requireRefused(t, steps, "f2", `topic "victim" has a created topic's id, but the state before does not say it was missing`)
	// No state before for it at all.
	steps = undoForged(t, cl, intent("f3", "victim", `{}`), outcome("f3", "victim", "ok", id))
	requireRefused(t, steps, "f3", "the state before does not say it was missing")
	// An id on an item that did not apply.
	steps = undoForged(t, cl, intent("f4", "victim", `{"victim":{"exists":false}}`), outcome("f4", "victim", "TOPIC_ALREADY_EXISTS", id))
	requireRefused(t, steps, "f4", "but its outcome is TOPIC_ALREADY_EXISTS")
	// The outcome of another op.
	steps = undoForged(t, cl, intent("f5", "victim", `{"victim":{"exists":false}}`),
		strings.Replace(outcome("f5", "victim", "ok", id), "create_topics", "delete_topics", 1))
	requireRefused(t, steps, "f5", "its outcome is for delete_topics, its intent for create_topics")
	requireTopic(t, c, "victim")

	// The same lines, consistent, do delete it: the checks are what stopped it.
	steps = undoForged(t, cl, intent("ok1", "victim", `{"victim":{"exists":false}}`), outcome("ok1", "victim", "ok", id))
	assert.Equal(t, []string{"create_topics victim: reverted"}, testengine.Actions(steps))
}

func TestUndoRefusesAnAlterConfigsOutcomeForAnotherResource(t *testing.T) {
	cl, _, adm := testengine.Client(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("2000")}, "other")
	require.NoError(t, err)
	before := `[{"type":"topic","name":"other","configs":{"retention.ms":{"value":"1000","source":"DYNAMIC_TOPIC_CONFIG"}}}]`
	steps := undoForged(t, cl,
		`{"type":"intent","id":"f1","op":"alter_configs","cluster_id":"kfake","args":{"alterations":[{"resource":{"type":"topic","name":"mine"},"set":{"retention.ms":"2000"}}]},"before":`+before+`}`,
		`{"type":"outcome","id":"f1","op":"alter_configs","items":[{"key":"topic:other","outcome":"ok","detail":{"retention.ms":"2000"}}]}`)
	requireRefused(t, steps, "f1", "its outcome names topic:other, which its arguments do not alter")
	// A config the alteration does not touch.
	steps = undoForged(t, cl,
		`{"type":"intent","id":"f2","op":"alter_configs","cluster_id":"kfake","args":{"alterations":[{"resource":{"type":"topic","name":"other"},"set":{"segment.ms":"1"}}]},"before":`+before+`}`,
		`{"type":"outcome","id":"f2","op":"alter_configs","items":[{"key":"topic:other","outcome":"ok","detail":{"retention.ms":"2000"}}]}`)
	requireRefused(t, steps, "f2", "topic:other: its outcome has config retention.ms, which its arguments do not touch")
	v, _ := testengine.TopicConfig(t, adm, "other", "retention.ms")
	assert.Equal(t, "2000", v, "undo changed nothing")
}

func TestUndoRefusesEntriesAfterAChainBreak(t *testing.T) {
	cl, c, _, path := testengine.Audited(t)
	require.NoError(t, testengine.CreateTopic(cl, "kept"))
	require.NoError(t, testengine.CreateTopic(cl, "edited"))
	lines := testaudit.Lines(t, path)
	lines[2] = strings.Replace(lines[2], `"edited"`, `"edited2"`, 1)
	testaudit.WriteLines(t, path, lines)

	changes, problems := testaudit.Read(t, path, auditlog.Options{})
	require.Len(t, problems, 1)
	steps, err := Run(context.Background(), cl, changes, Options{Confirm: func(string) bool { return true }})
	require.NoError(t, err)
	steps = append(ProblemSteps(problems), steps...)
	require.Len(t, steps, 3, "%v", testengine.Actions(steps))
	assert.Equal(t, engine.UndoStep{Resource: "line 3", Action: engine.UndoRefused, Message: problems[0].Reason}, steps[0])
	assert.Equal(t, engine.UndoRefused, steps[1].Action)
	assert.Contains(t, steps[1].Message, "not trusted: the audit log's hash chain breaks at line 3")
	assert.Equal(t, "create_topics kept: reverted", testengine.Actions(steps[2:])[0], "the change before the break is still undone")
	td := testengine.FreshTopics(t, c)
	assert.Contains(t, td, "edited")
	assert.NotContains(t, td, "kept")
}
