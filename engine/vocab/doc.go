// Package vocab is the vocabulary every engine package shares, below them
// all: the error type and its codes, the secret type, the topic-partition
// type, waiting with backoff, and sorted map keys. It imports only the
// standard library, so that the pure concern packages (auditlog, redact,
// login, verdicts, state, alerts, placement) can speak it without reaching
// the admin core or a Kafka client. The core (package engine) re-exports
// these names (engine.Error, engine.Errorf, engine.Code*, engine.Secret,
// engine.TopicPartition), which its admin files and the Lua layer use.
package vocab
