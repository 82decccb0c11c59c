// Package single holds the integration tests that run kadmin-lua (the Lua
// runtime in-process, and the built binary) against one real Apache Kafka
// node with SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and ACLs, started once
// for the package by TestMain through internal/kafkatest.
//
// The tests are skipped only with `go test -short` or KADMIN_SKIP_KAFKA=1;
// otherwise a broker that cannot be started fails the package.
package single
