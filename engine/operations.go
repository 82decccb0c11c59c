package engine

import (
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// The operations table: one row per function that changes the cluster,
// with every fact the safety layer needs about it in one place. mutate
// reads it for each request (a mutation with no row is refused), dry-run
// is enforced from it, undo dispatches on it, and luaapi derives from it
// which Lua functions are mutating, which the REPL confirms, and what
// help() and docs/api.md say about dry-run and undo. Adding a mutating
// function means adding its row; TestOperationsAreComplete and luaapi's
// TestEveryMutationHasItsRow fail until the row says everything.

// DryRunMode is how an operation behaves under --dry-run.
type DryRunMode int

const (
	// DryRunValidate: the request goes out with Kafka's validate_only;
	// the broker checks it and nothing changes.
	DryRunValidate DryRunMode = iota + 1
	// DryRunPlan: the API has no validate_only. Nothing that changes the
	// cluster is sent; reads check what they can and a plan says what
	// would change.
	DryRunPlan
)

func (m DryRunMode) String() string {
	switch m {
	case DryRunValidate:
		return "validate_only"
	case DryRunPlan:
		return "plan"
	}
	return "unset"
}

// Operation is one row of the table.
type Operation struct {
	Name string // the Lua function's name, also the op of its audit lines
	// Destructive: the REPL asks before running it unless --yes. Every
	// operation that cannot be undone is destructive unless Unconfirmed
	// says why asking would be noise.
	Destructive bool
	Unconfirmed string
	DryRun      DryRunMode
	// Before is what the intent line records as the state before ("" for
	// none): what undo, or an operator reading the log, restores from.
	Before string
	// Undo says how `kadmin-lua undo` reverts the operation or, when it
	// cannot (revert is nil), why not.
	Undo string
	// Via: the function changes the cluster only through these other
	// operations (their own rows and audit lines); it has no audit line
	// of its own.
	Via []string
	// Run: the op is an audited run (run_audit.go), a change made of many
	// calls whose own audit lines are marked with its id. Undo reverts it
	// whole from its intent and the cluster, with or without an outcome
	// (a run killed in the middle has none), and leaves its steps alone.
	Run bool

	revert func(u *undoer, applied map[string]auditlog.ItemOutcome) error
}

// Undoable reports whether `kadmin-lua undo` reverts the operation.
func (o *Operation) Undoable() bool { return o.revert != nil }

func revertOffsets(deleted bool) func(u *undoer, applied map[string]auditlog.ItemOutcome) error {
	return func(u *undoer, applied map[string]auditlog.ItemOutcome) error { return u.offsets(applied, deleted) }
}

// operations, sorted by name. Filled in init: the reverters call the
// functions that call mutate, which reads the table.
var operations []*Operation

func init() { operations = operationRows() }

func operationRows() []*Operation {
	return []*Operation{
		{Name: "abort_transaction", Destructive: true, DryRun: DryRunPlan,
			Undo: "an aborted transaction cannot be resumed"},
		{Name: "add_raft_voter", Destructive: true, DryRun: DryRunPlan,
			Before: "the quorum's voters, with their directory ids and endpoints",
			Undo:   "removes the voter again (remove_raft_voter), if it is still a voter with the same directory id",
			revert: (*undoer).addedRaftVoter},
		{Name: "alter_client_quotas", DryRun: DryRunValidate,
			Before: "each entity's quotas", Undo: "sets each quota back to its value before (removes it where there was none)",
			revert: (*undoer).quotas},
		{Name: "alter_configs", DryRun: DryRunValidate,
			Before: "each resource's configs and their sources", Undo: "sets each changed config back to its value before, or deletes it where it was not set",
			revert: (*undoer).configs},
		{Name: "alter_partition_reassignments", Destructive: true, DryRun: DryRunPlan,
			Before: "each partition's replicas", Undo: "reassigns each partition back to its replicas before",
			revert: (*undoer).reassignments},
		{Name: "alter_replica_log_dirs", Destructive: true, DryRun: DryRunPlan,
			Before: "each replica's log dir",
			Undo:   "log dir moves are not undone: move them back with alter_replica_log_dirs (the intent line has the dirs before)"},
		{Name: "alter_share_group_offsets", Destructive: true, DryRun: DryRunPlan,
			Before: "the share group's offsets",
			Undo:   "share group offset changes are not undone: the intent line has the offsets before"},
		{Name: "alter_user_scram_credentials", Destructive: true, DryRun: DryRunPlan,
			Before: "each user's mechanisms (never a credential)",
			Undo:   "SCRAM credential changes cannot be undone: the old credentials are not recorded (only their mechanisms)"},
		{Name: "cancel_partition_reassignments", Destructive: true, DryRun: DryRunPlan,
			Before: "the reassignments in progress",
			Undo:   "a cancelled reassignment is not restarted: run alter_partition_reassignments again (the intent line has the reassignment that was in progress)"},
		{Name: "commit_offsets", DryRun: DryRunPlan,
			Before: "the group's committed offsets", Undo: "commits the offsets before again (deletes the ones that did not exist)",
			revert: revertOffsets(false)},
		{Name: "create_acls", DryRun: DryRunPlan,
			Before: "the ACLs that already existed", Undo: "deletes the ACLs that did not exist before",
			revert: (*undoer).createdACLs},
		{Name: "create_delegation_token", DryRun: DryRunPlan,
			Undo:        "tokens are not undone: expire it with expire_delegation_token",
			Unconfirmed: "it only adds a credential, which expire_delegation_token ends"},
		{Name: "create_partitions", Destructive: true, DryRun: DryRunValidate,
			Before: "each topic's partition count",
			Undo:   "partition increases cannot be undone: Kafka cannot lower a partition count"},
		{Name: "create_topics", DryRun: DryRunValidate,
			Before: "whether each topic existed", Undo: "deletes each created topic, if it is still the one created (same topic id); asks first",
			revert: (*undoer).createdTopics},
		{Name: "delete_acls", Destructive: true, DryRun: DryRunPlan,
			Before: "the ACLs each filter matched", Undo: "creates the deleted ACLs again",
			revert: (*undoer).deletedACLs},
		{Name: "delete_group_offsets", Destructive: true, DryRun: DryRunPlan,
			Before: "the group's committed offsets", Undo: "commits the deleted offsets again",
			revert: revertOffsets(true)},
		{Name: "delete_groups", Destructive: true, DryRun: DryRunPlan,
			Before: "each group's committed offsets",
			Undo:   "a deleted group cannot be recreated as it was (its committed offsets before are in the intent line: commit_offsets can restore them)"},
		{Name: "delete_records", Destructive: true, DryRun: DryRunPlan,
			Before: "each partition's log start offset",
			Undo:   "deleted records cannot be undone"},
		{Name: "delete_schema_version", Destructive: true, DryRun: DryRunPlan,
			Before: "the version's schema and id",
			Undo:   "a soft delete is undone by registering the schema again (its id is kept, the version number is new), if the subject does not hold it again; a permanent delete cannot be undone",
			revert: (*undoer).deletedSchemas},
		{Name: "delete_share_group_offsets", Destructive: true, DryRun: DryRunPlan,
			Before: "the share group's offsets",
			Undo:   "share group offset deletions are not undone: the intent line has the offsets before"},
		{Name: "delete_subject", Destructive: true, DryRun: DryRunPlan,
			Before: "the subject's versions, with their schemas and ids",
			Undo:   "a soft delete is undone by registering the versions' schemas again, oldest first (their ids are kept, the version numbers are new), if the subject does not hold them again; a permanent delete cannot be undone",
			revert: (*undoer).deletedSchemas},
		{Name: "delete_topics", Destructive: true, DryRun: DryRunPlan,
			Before: "whether each topic existed, and its id",
			Undo:   "deleted topics cannot be undone: their data is gone"},
		{Name: "elect_leaders", Destructive: true, DryRun: DryRunPlan,
			Before: "each partition's leader",
			Undo:   "leader elections are not undone: run elect_leaders again"},
		{Name: "expire_delegation_token", Destructive: true, DryRun: DryRunPlan,
			Undo: "token expiry cannot be undone"},
		{Name: "fence_producers", Destructive: true, DryRun: DryRunPlan,
			Undo: "fenced producers cannot be unfenced"},
		{Name: "probe", DryRun: DryRunPlan, Via: []string{"commit_offsets", "create_topics", "produce"},
			Undo: "its changes are audited as create_topics (the probe topic, on first use), produce (the probe records, which expire with the topic's retention) and commit_offsets (the probe group's offsets), each undone as its own row says"},
		{Name: "produce", Destructive: true, DryRun: DryRunPlan,
			Before: "each partition's end offset",
			Undo:   "records cannot be un-produced, and undo does not delete them: delete_records up to the produced offsets would also delete every record written before them in those partitions (Kafka deletes a partition's prefix). The outcome line has each record's partition and offset"},
		{Name: "reassign", Destructive: true, DryRun: DryRunPlan, Run: true,
			Before: "each partition's replicas, and the reassignment in progress on it",
			Undo:   "moves each partition the run completed (and nobody changed since) back to its replicas before, through the paced executor with the run's caps",
			revert: (*undoer).reassignRun},
		{Name: "register_schema", DryRun: DryRunPlan,
			Before: "whether the subject held the schema already",
			Undo:   "soft-deletes the version it registered, if it is still the subject's newest with the same id (the id stays readable)",
			revert: (*undoer).registeredSchema},
		{Name: "remove_group_members", Destructive: true, DryRun: DryRunPlan,
			Before: "the group's members",
			Undo:   "removed members cannot be put back: consumers rejoin by themselves"},
		{Name: "remove_raft_voter", Destructive: true, DryRun: DryRunPlan,
			Before: "the quorum's voters, with their directory ids and endpoints",
			Undo:   "adds the voter again (add_raft_voter) with the endpoints recorded before; its controller must be running",
			revert: (*undoer).removedRaftVoter},
		{Name: "renew_delegation_token", Destructive: true, DryRun: DryRunPlan,
			Undo: "token renewals cannot be undone"},
		{Name: "reset_offsets", Destructive: true, DryRun: DryRunPlan,
			Before: "the group's committed offsets", Undo: "commits the offsets before again (deletes the ones that did not exist)",
			revert: revertOffsets(false)},
		{Name: "set_schema_compatibility", DryRun: DryRunPlan,
			Before: "the subject's (or the registry's) compatibility level, and whether it was the subject's own",
			Undo:   "sets the level back, or removes the subject's own level when it had none, if the level is still the one set",
			revert: (*undoer).schemaCompatibility},
		{Name: "unregister_broker", Destructive: true, DryRun: DryRunPlan,
			Undo: "an unregistered broker registers again when it starts"},
		{Name: "update_features", Destructive: true, DryRun: DryRunValidate,
			Before: "each feature's level",
			Undo:   "feature level changes are not undone: the intent line has the levels before"},
		{Name: "wait_reassignments", DryRun: DryRunPlan, Via: []string{"alter_configs"},
			Undo: "its removal of replication throttles is an alter_configs change of its own, which undo reverts"},
	}
}

// LookupOperation is the row of the operation name, or nil.
func LookupOperation(name string) *Operation {
	i, ok := slices.BinarySearchFunc(operations, name, func(o *Operation, n string) int { return strings.Compare(o.Name, n) })
	if !ok {
		return nil
	}
	return operations[i]
}

// Operations is the table, sorted by name. The caller must not change it.
func Operations() []*Operation { return operations }
