// Package moves is the paced executor: it carries a reassignment plan out
// through the admin core in batches, never more moves in flight than the
// caps allow (per broker a replica joins or leaves, and in the cluster),
// submitting the next moves as earlier ones finish, smallest first (or
// largest, or most urgent, or in the plan's order), under a replication
// throttle per broker that can change while it runs. It measures each
// move's copied bytes from the log dirs, flags a move whose bytes stop
// growing as stalled, and reports done, moving and queued partitions,
// bytes, rate and ETA.
//
// A run is written ahead (engine.BeginRun): its intent line holds the
// whole plan and the replicas before, each batch is an
// alter_partition_reassignments marked with the run's id, and the outcome
// line is written when nothing is left to move. A run killed at any point
// is resumed from that intent and the cluster (Options.Resume): what is
// done or in flight is never sent again. Undo moves what the run completed
// back through the same executor and caps (MoveBack, which engine/undo
// hands to the core's reverter).
//
// The package drives the cluster only through the core's audited methods;
// the core never imports it.
package moves
