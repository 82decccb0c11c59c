package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// Every row says everything: how it dry-runs, how undo reverts it or why
// it cannot, and an op that cannot be undone is confirmed unless the row
// says why not.
func TestOperationsAreComplete(t *testing.T) {
	names := make([]string, 0, len(operations))
	for _, op := range operations {
		names = append(names, op.Name)
		t.Run(op.Name, func(t *testing.T) {
			assert.NotZero(t, op.DryRun, "DryRun: validate_only or plan")
			assert.NotEmpty(t, op.Undo, "Undo: how it is reverted, or why it cannot be")
			if op.Undoable() {
				assert.NotEmpty(t, op.Before, "an undoable op records the state it reverts to")
				assert.Empty(t, op.Unconfirmed)
			} else if op.Via == nil {
				assert.True(t, op.Destructive != (op.Unconfirmed != ""),
					"an op that cannot be undone is destructive, or says in Unconfirmed why it needs no confirmation")
			}
			for _, v := range op.Via {
				sub := LookupOperation(v)
				require.NotNil(t, sub, "Via names a row")
				assert.Nil(t, sub.Via)
			}
			assert.Same(t, op, LookupOperation(op.Name))
		})
	}
	assert.True(t, slices.IsSorted(names), "rows sorted by name: LookupOperation searches them")
	assert.Nil(t, LookupOperation("list_topics"))
}

// The dry-run floor is the engine's: a client configured with DryRun
// sends no mutating request but a validate_only one, whatever its caller
// asks, and a context can raise it on a client that is not.
func TestDryRunIsEnforcedWhereRequestsAreSent(t *testing.T) {
	plain, c, adm := newTestClient(t)
	ctx := context.Background()
	creates := countRequests(c, kmsg.CreateTopics)
	deletes := countRequests(c, kmsg.DeleteTopics)
	_, err := plain.CreateTopics(ctx, []TopicSpec{{Name: "kept", Partitions: 1}}, CreateTopicsOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 1, creates.Load())

	cfg := plain.Config()
	cfg.DryRun = true
	dry, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(dry.Close)
	assert.True(t, dry.DryRun(ctx))

	_, err = dry.CreateTopics(ctx, []TopicSpec{{Name: "never", Partitions: 1}}, CreateTopicsOptions{})
	require.Error(t, err)
	assert.Equal(t, CodeDryRun, AsError(err, "").Code)
	assert.Contains(t, err.Error(), "create_topics: dry run: nothing was sent")
	_, err = dry.DeleteTopics(ctx, []string{"kept"}, DeleteTopicsOptions{})
	assert.Equal(t, CodeDryRun, AsError(err, "").Code)
	assert.Zero(t, deletes.Load(), "no DeleteTopics request reached the broker")

	// validate_only goes out: the broker checks, nothing changes.
	res, err := dry.CreateTopics(ctx, []TopicSpec{{Name: "checked", Partitions: 1}}, CreateTopicsOptions{ValidateOnly: true})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.EqualValues(t, 2, creates.Load())

	// A context raises it on the plain client.
	assert.True(t, plain.DryRun(WithDryRun(ctx)))
	_, err = plain.DeleteTopics(WithDryRun(ctx), []string{"kept"}, DeleteTopicsOptions{})
	assert.Equal(t, CodeDryRun, AsError(err, "").Code)
	assert.Zero(t, deletes.Load())

	td, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	assert.Contains(t, td, "kept")
	assert.NotContains(t, td, "never")
	assert.NotContains(t, td, "checked")
}

// The reverter answers from the row: an op that cannot be undone says the row's
// reason; one the table does not know is said to be unknown.
func TestUndoReadsTheOperationsTable(t *testing.T) {
	cl, _, _ := newTestClient(t)
	id, _ := cl.ClusterID(context.Background())
	change := func(op string) auditlog.Change {
		return auditlog.Change{
			Intent:  auditlog.Record{Type: auditlog.TypeIntent, ID: "20261201T000000.000000Z-" + op, Op: op, ClusterID: id},
			Outcome: &auditlog.Record{Type: auditlog.TypeOutcome, Op: op, Items: []auditlog.ItemOutcome{{Key: "x", Outcome: auditlog.OutcomeOK}}},
		}
	}
	r := cl.Reverter(RevertOptions{})
	var steps []UndoStep
	for _, op := range []string{"frobnicate", "create_partitions"} { // newest first, as undo calls it
		steps = append(steps, r.Revert(context.Background(), change(op), nil)...)
	}
	require.Len(t, steps, 2)
	byOp := map[string]UndoStep{}
	for _, s := range steps {
		byOp[s.Op] = s
	}
	assert.Equal(t, UndoImpossible, byOp["create_partitions"].Action)
	assert.Equal(t, LookupOperation("create_partitions").Undo, byOp["create_partitions"].Message)
	assert.Equal(t, UndoImpossible, byOp["frobnicate"].Action)
	assert.True(t, strings.Contains(byOp["frobnicate"].Message, `does not know the operation "frobnicate"`), byOp["frobnicate"].Message)
}
