// Package engine is kadmin-lua's Kafka admin core: a thin, typed layer over
// franz-go's kadm (and kmsg where kadm has no helper) that the Lua API, the
// CLI and Go programs all share. It never imports Lua. The engine's other
// concerns are packages beside it (docs/architecture.md): below it, with no
// Kafka client, the audit log (auditlog), logins (login), the state store
// (state), alerts, Burrow's verdicts, placement, redact and the vocabulary
// every one of them shares (vocab); above it, driving the cluster through
// it, undo and desired state.
//
// The model, copied from kadm:
//
//   - one file per admin area (topics.go, configs.go, groups.go, ...);
//   - every call takes a context and is bounded by the client's per-call
//     timeout (Config.Timeout) unless the context is shorter;
//   - batch calls return one result per item, each with its own *Error, in a
//     deterministic order (topic name, then partition); the call's own error
//     is reserved for failures that prevented the whole request;
//   - retriable Kafka errors (NOT_CONTROLLER, LEADER_NOT_AVAILABLE,
//     COORDINATOR_LOAD_IN_PROGRESS, timeouts, ...) are retried with backoff
//     until the deadline, per item where Kafka answers per item. A mutation
//     whose outcome is unknown (REQUEST_TIMED_OUT on a create) is never
//     retried blindly: the engine looks at the cluster first.
//
// Admin reads never use kgo's metadata cache, so a describe after a create in
// the same process sees the change (read-your-writes).
package engine
