// Package redact finds secrets in free-form data so that no output, log,
// history or audit line shows them: field names that hold a secret
// (IsSecretKey), nested values (Value), webhook and endpoint URLs (URL,
// Endpoint) and another program's free text (Text). It is pure: no I/O,
// no Kafka.
package redact
