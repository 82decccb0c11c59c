package luaapi

import (
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// What help(), `kadmin-lua doc` and docs/api.md say about a mutating
// function's safety comes from its row in the engine's operations table
// (engine/operations.go), the same row mutate, the REPL's confirmation and
// undo read: one place says it.

// OperationDoc is a mutating function's row, as documentation.
type OperationDoc struct {
	DryRun   string   `json:"dry_run"`  // "validate_only" or "plan"
	Before   string   `json:"before"`   // what the intent line records as the state before; "" none
	Undoable bool     `json:"undoable"` // kadmin-lua undo reverts it
	Undo     string   `json:"undo"`     // how, or why it cannot
	Via      []string `json:"via,omitempty"`
}

func operationDoc(op *engine.Operation) *OperationDoc {
	if op == nil {
		return nil
	}
	return &OperationDoc{DryRun: op.DryRun.String(), Before: op.Before, Undoable: op.Undoable(), Undo: op.Undo, Via: op.Via}
}

// operationNotes are the row's facts as sentences, for help and the
// reference.
func operationNotes(op *engine.Operation) []string {
	if op == nil {
		return nil
	}
	var out []string
	switch op.DryRun {
	case engine.DryRunValidate:
		out = append(out, "Dry run: Kafka checks the request (validate_only); nothing changes.")
	case engine.DryRunPlan:
		out = append(out, "Dry run: a plan on stderr; nothing that changes the cluster is sent.")
	}
	if len(op.Via) > 0 {
		out = append(out, "Audit: its changes are written ahead as "+strings.Join(op.Via, ", ")+" lines.")
	} else if op.Before != "" {
		out = append(out, "Audit: the intent line records "+op.Before+".")
	}
	if op.Undoable() {
		out = append(out, "Undo: "+op.Undo+".")
	} else {
		out = append(out, "Undo: not undone: "+op.Undo+".")
	}
	return out
}
