// Package auditlog is kadmin-lua's write-ahead audit log: the writer that
// appends and syncs an intent line before each mutating request and an
// outcome line after (log.go, record.go), the hash chain that makes an
// edited, removed or inserted line visible, keyed with HMAC or not
// (chain.go), and the reader that pairs intents with outcomes and says
// which changes it can vouch for (read.go). It knows nothing of Kafka: the
// admin core (engine's mutate) decides what a line says and when it is
// written; undo (engine/undo) reads it back. docs/cli.md describes the
// format.
package auditlog
