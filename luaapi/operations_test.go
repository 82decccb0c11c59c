package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// The engine's operations table and the Lua surface agree: every row is a
// registered admin function, marked from its row; no function is mutating
// without one; and a declaration cannot say it by hand.
// TestEveryMutationIsAuditedDryRunAndConfirmed (sweep_test.go) checks the
// other direction on the wire: a function without a row that sends a
// mutating request fails it.
func TestEveryMutationHasItsRow(t *testing.T) {
	for _, op := range engine.Operations() {
		f := Lookup(op.Name)
		require.NotNil(t, f, "row %s is a Lua function", op.Name)
		assert.True(t, f.IsAdmin(), op.Name)
		assert.Same(t, op, f.Operation, op.Name)
		assert.True(t, f.Mutating, op.Name)
		assert.Equal(t, op.Destructive, f.Destructive, op.Name)
		assert.Equal(t, op.DryRun == engine.DryRunValidate, f.ValidateOnly, op.Name)
	}
	for _, f := range Funcs() {
		if f.Mutating || f.Destructive || f.ValidateOnly {
			assert.NotNil(t, f.Operation, "%s is marked from a row", f.Name)
		}
	}
	assert.PanicsWithValue(t, "luaapi: handmade: Mutating, Destructive and ValidateOnly come from engine's operations table, not the declaration",
		func() { register(&Func{Name: "handmade", Mutating: true}) })
	assert.Nil(t, Lookup("handmade"))
}

// help(fn) says what the row says: how the function dry-runs, what its
// audit line records, and how undo reverts it or why it cannot.
func TestHelpSaysTheRow(t *testing.T) {
	h := FuncHelp(Lookup("create_partitions"))
	assert.Contains(t, h, "destructive (the REPL asks first unless --yes)")
	assert.Contains(t, h, "Dry run: Kafka checks the request (validate_only); nothing changes.")
	assert.Contains(t, h, "Undo: not undone: partition increases cannot be undone")
	h = FuncHelp(Lookup("alter_configs"))
	assert.Contains(t, h, "Audit: the intent line records each resource's configs and their sources.")
	assert.Contains(t, h, "Undo: sets each changed config back")
	assert.NotContains(t, FuncHelp(Lookup("list_topics")), "Undo:")
	d := DocOf(Lookup("delete_topics"))
	require.NotNil(t, d.Operation)
	assert.Equal(t, "plan", d.Operation.DryRun)
	assert.False(t, d.Operation.Undoable)
	assert.Nil(t, DocOf(Lookup("list_topics")).Operation)
}
