// Package compat calls every admin function once against a real broker of
// the Kafka release and mode the harness runs (KADMIN_KAFKA_VERSION,
// KADMIN_KAFKA_MODE), and checks what happened against
// docs/compatibility.md's column for it: a function the table says works
// must work, and one it says lacks something must fail with
// UNSUPPORTED_VERSION naming that need before sending anything. `make
// test` runs it on every column (the version matrix, docs/testing.md).
package compat
