package engine

import "github.com/kadmin-lua/kadmin-lua/engine/vocab"

// The vocabulary lives in engine/vocab, below every engine package, so that
// the concern packages (auditlog, login, state, alerts, ...) share it
// without importing the core. The core re-exports it under the names its
// admin files and the Lua layer have always used: engine.Error is the
// engine's error wherever it is raised. Packages under engine/ import vocab
// itself, never these.

type (
	// Error is vocab.Error: a Kafka error name or a Code* constant, the
	// item it concerns, and the underlying error.
	Error = vocab.Error
	// Item is vocab.Item: a per-item result of a batch.
	Item = vocab.Item
	// Secret is vocab.Secret: a string that never prints.
	Secret = vocab.Secret
	// TopicPartition is vocab.TopicPartition: one partition.
	TopicPartition = vocab.TopicPartition
)

// Client-side error codes (vocab's).
const (
	CodeInvalidArgument = vocab.CodeInvalidArgument
	CodeTimeout         = vocab.CodeTimeout
	CodeNetwork         = vocab.CodeNetwork
	CodeAuth            = vocab.CodeAuth
	CodeTLS             = vocab.CodeTLS
	CodeCanceled        = vocab.CodeCanceled
	CodeDryRun          = vocab.CodeDryRun
	CodeNotFound        = vocab.CodeNotFound
	CodeUnknown         = vocab.CodeUnknown
	CodeInternal        = vocab.CodeInternal
	CodeStateLocked     = vocab.CodeStateLocked
	CodeStateFile       = vocab.CodeStateFile
)

// Errorf builds a client-side error (vocab.Errorf).
func Errorf(code, resource, format string, args ...any) *Error {
	return vocab.Errorf(code, resource, format, args...)
}

// FirstFailure returns the first failed item of a batch, and how many
// failed (vocab.FirstFailure).
func FirstFailure[T Item](items []T) (first *Error, failed int) { return vocab.FirstFailure(items) }
