#!/bin/sh
# Fetch the Apache Kafka broker jars used by internal/kafkatest into the user
# cache ($XDG_CACHE_HOME or ~/.cache)/kadmin-lua/kafka-<version>/libs with
# Maven, and print that directory. A second run does not touch the network.
# CI can call this before `go test` so that test timeouts do not include the
# download. Needs go and mvn; KADMIN_KAFKA_VERSION selects another version.
set -eu
cd "$(dirname "$0")/../.."
exec go run ./internal/kafkatest/fetchjars
