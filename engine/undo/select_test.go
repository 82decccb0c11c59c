package undo

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testengine"
)

func readChanges(t *testing.T, path string) []auditlog.Change {
	t.Helper()
	changes, problems, err := auditlog.ReadFile(path, auditlog.Options{})
	require.NoError(t, err)
	require.Empty(t, problems)
	return changes
}

// Selecting a resource reverts only that topic of a create_topics of
// five; the other four stay.
func TestUndoSelectOneTopicOfFive(t *testing.T) {
	cl, c, _, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := cl.CreateTopics(ctx, []engine.TopicSpec{{Name: "t1"}, {Name: "t2"}, {Name: "t3"}, {Name: "t4"}, {Name: "t5"}}, engine.CreateTopicsOptions{})
	require.NoError(t, err)
	yes := func(string) bool { return true }

	steps := undoLog(t, cl, path, Options{Select: &Selection{Resources: []string{"topic:t3"}}, Confirm: yes})
	assert.Equal(t, []string{"create_topics t3: reverted"}, testengine.Actions(steps))
	td := testengine.FreshTopics(t, c)
	assert.NotContains(t, td, "t3")
	for _, n := range []string{"t1", "t2", "t4", "t5"} {
		assert.Contains(t, td, n, "not selected: left")
	}
	// A plain name works too, and an undone item is not undone twice.
	steps = undoLog(t, cl, path, Options{Select: &Selection{Resources: []string{"t3", "t5"}}, Confirm: yes})
	assert.Equal(t, []string{"create_topics t3: skipped", "create_topics t5: reverted"}, testengine.Actions(steps))
	td = testengine.FreshTopics(t, c)
	assert.NotContains(t, td, "t5")
	assert.Contains(t, td, "t4")
}

// Selecting a config key reverts only that key of an alter_configs that
// set two; by id, only that change.
func TestUndoSelectConfigKeyAndID(t *testing.T) {
	cl, _, adm, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "cfg")
	require.NoError(t, err)
	_, err = adm.CreateTopic(ctx, 1, 1, nil, "other")
	require.NoError(t, err)
	res, err := cl.AlterConfigs(ctx, []engine.ConfigAlteration{
		{Resource: engine.ConfigResource{Type: engine.ConfigTopic, Name: "cfg"}, Set: map[string]string{"retention.ms": "2000", "segment.ms": "3600000"}},
		{Resource: engine.ConfigResource{Type: engine.ConfigTopic, Name: "other"}, Set: map[string]string{"retention.ms": "5000"}},
	}, engine.AlterConfigsOptions{})
	require.NoError(t, err)
	requireNoFailure(t, res)
	res, err = cl.AlterConfigs(ctx, []engine.ConfigAlteration{{Resource: engine.ConfigResource{Type: engine.ConfigTopic, Name: "other"}, Set: map[string]string{"cleanup.policy": "compact"}}}, engine.AlterConfigsOptions{})
	require.NoError(t, err)
	requireNoFailure(t, res)
	changes := readChanges(t, path)
	require.Len(t, changes, 2)

	// --resource cfg --key retention.ms: only that key of that topic.
	steps := undoLog(t, cl, path, Options{Select: &Selection{Resources: []string{"cfg"}, Keys: []string{"retention.ms"}}})
	assert.Equal(t, []string{"alter_configs topic:cfg: reverted"}, testengine.Actions(steps))
	v, _ := testengine.TopicConfig(t, adm, "cfg", "retention.ms")
	assert.Equal(t, "1000", v, "the selected key is back")
	v, _ = testengine.TopicConfig(t, adm, "cfg", "segment.ms")
	assert.Equal(t, "3600000", v, "the other key of the same change stays")
	v, _ = testengine.TopicConfig(t, adm, "other", "retention.ms")
	assert.Equal(t, "5000", v, "the other topic stays")

	// --id the second change: only it.
	steps = undoLog(t, cl, path, Options{Select: &Selection{IDs: []string{changes[1].Intent.ID}}})
	assert.Equal(t, []string{"alter_configs topic:other: reverted"}, testengine.Actions(steps))
	_, src := testengine.TopicConfig(t, adm, "other", "cleanup.policy")
	assert.NotEqual(t, "DYNAMIC_TOPIC_CONFIG", src, "the second change is reverted")
	v, _ = testengine.TopicConfig(t, adm, "other", "retention.ms")
	assert.Equal(t, "5000", v, "the first change is not")

	// A key no change touched selects nothing.
	assert.Empty(t, undoLog(t, cl, path, Options{Select: &Selection{Keys: []string{"max.message.bytes"}}}))
	// An unknown id is refused before anything runs.
	sel := &Selection{IDs: []string{"nope"}}
	assert.ErrorContains(t, sel.Check(changes), `--id "nope" is not an intent id`)
	assert.NoError(t, (&Selection{IDs: []string{changes[0].Intent.ID}}).Check(changes))
}

func TestUndoSelectionMatches(t *testing.T) {
	ch := func(op, before string, keys ...string) auditlog.Change {
		out := &auditlog.Record{}
		for _, k := range keys {
			out.Items = append(out.Items, auditlog.ItemOutcome{Key: k, Outcome: auditlog.OutcomeOK})
		}
		return auditlog.Change{Intent: auditlog.Record{ID: op, Op: op, Before: []byte(before)}, Outcome: out}
	}
	changes := []auditlog.Change{
		ch("alter_partition_reassignments", `[]`, "orders[0]", "orders[1]", "payments[0]"),
		ch("commit_offsets", `{"group":"billing"}`, "orders[0]"),
		ch("create_acls", `null`, "User:etl allow read on topic orders (literal) from *", "User:etl allow read on group billing (literal) from *"),
		ch("alter_configs", `[]`, "broker:1", "topic:orders"),
		auditlog.Change{Intent: auditlog.Record{ID: "undo", Op: "create_topics", UndoOf: "x"}, Outcome: &auditlog.Record{Items: []auditlog.ItemOutcome{{Key: "orders"}}}},
	}
	keys := func(sel Selection) []string {
		var out []string
		for _, c := range sel.Select(changes) {
			for _, it := range c.Outcome.Items {
				out = append(out, c.Intent.Op+" "+it.Key)
			}
		}
		return out
	}
	assert.Equal(t, []string{
		"alter_partition_reassignments orders[0]", "alter_partition_reassignments orders[1]",
		"commit_offsets orders[0]",
		"create_acls User:etl allow read on topic orders (literal) from *",
		"alter_configs topic:orders",
	}, keys(Selection{Resources: []string{"topic:orders"}}))
	assert.Equal(t, []string{
		"commit_offsets orders[0]",
		"create_acls User:etl allow read on group billing (literal) from *",
	}, keys(Selection{Resources: []string{"billing"}}))
	assert.Equal(t, []string{"alter_configs broker:1"}, keys(Selection{Resources: []string{"broker:1"}}))
	assert.Len(t, changes[0].Outcome.Items, 3, "the changes given are not modified")
	assert.Len(t, (*Selection)(nil).Select(changes), len(changes), "no selection keeps all")
}

func requireNoFailure[T vocab.Item](t *testing.T, items []T) {
	t.Helper()
	first, _ := vocab.FirstFailure(items)
	require.Nil(t, first)
}

// A fleet's log holds several profiles' changes, here on two clusters
// with the same id (kfake's and docker-compose's are fixed): undo through
// one profile acts on that profile's lines only and says it skipped the
// others. It used to revert the other cluster's change on its own (and
// with that change's before-state).
func TestUndoActsOnItsOwnProfilesLines(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.jsonl")
	log, err := auditlog.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })
	member := func(profile, retention string) (*engine.Client, *kadm.Client) {
		cl, _, adm := testengine.Client(t, kfake.ClusterID("fixed-id"))
		_, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr(retention)}, "orders")
		require.NoError(t, err)
		cfg := cl.Config()
		cfg.Profile, cfg.Audit = profile, log
		out, err := engine.New(cfg)
		require.NoError(t, err)
		t.Cleanup(out.Close)
		return out, adm
	}
	east, eastAdm := member("east", "1000")
	west, westAdm := member("west", "5000")
	for _, cl := range []*engine.Client{east, west} {
		_, err := cl.AlterConfigs(ctx, []engine.ConfigAlteration{{Resource: engine.ConfigResource{Type: engine.ConfigTopic, Name: "orders"}, Set: map[string]string{"retention.ms": "2000"}}}, engine.AlterConfigsOptions{})
		require.NoError(t, err)
	}
	changes := readChanges(t, path)
	require.Len(t, changes, 2)

	steps, err := Run(ctx, east, changes, Options{})
	require.NoError(t, err)
	require.Len(t, steps, 2)
	assert.Equal(t, changes[1].Intent.ID, steps[0].ID)
	assert.Equal(t, engine.UndoSkipped, steps[0].Action)
	assert.Equal(t, "written through profile west, not east: run undo --profile west", steps[0].Message)
	assert.Equal(t, engine.UndoReverted, steps[1].Action)
	v, _ := testengine.TopicConfig(t, eastAdm, "orders", "retention.ms")
	assert.Equal(t, "1000", v, "east's own before-state")
	v, _ = testengine.TopicConfig(t, westAdm, "orders", "retention.ms")
	assert.Equal(t, "2000", v, "west's change is west's to undo")

	// west's undo reverts west's change: east's undo did not mark it done.
	steps, err = Run(ctx, west, readChanges(t, path), Options{})
	require.NoError(t, err)
	// Newest first: east's undo (an undo itself), west's change, east's.
	assert.Equal(t, []string{"alter_configs : " + engine.UndoSkipped, "alter_configs topic:orders: " + engine.UndoReverted, "alter_configs : " + engine.UndoSkipped}, testengine.Actions(steps))
	v, _ = testengine.TopicConfig(t, westAdm, "orders", "retention.ms")
	assert.Equal(t, "5000", v)

	// Without a profile, a profile's lines are this undo's when it names
	// one of their seed brokers: east's are, west's are not.
	bare, err := engine.New(engine.Config{Brokers: east.Config().Brokers, Timeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(bare.Close)
	steps, err = Run(ctx, bare, changes, Options{DryRun: true})
	require.NoError(t, err)
	require.Len(t, steps, 2)
	assert.Equal(t, "written through profile west (brokers "+strings.Join(west.Config().Brokers, ",")+"), none of which this undo names: run undo --profile west", steps[0].Message)
	assert.Equal(t, engine.UndoSkipped, steps[1].Action)
	assert.Contains(t, steps[1].Message, "already as before", "east's change was looked at: east's undo put it back")
}
