#!/usr/bin/env bash
# deps.sh: install what `make test` needs beyond Go, on a Debian machine, and
# fetch the Kafka broker jars. Idempotent: a second run installs nothing.
# As root it installs the missing Debian packages with apt-get; as another
# user it prints the exact apt-get line and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v kcat >/dev/null || need+=(kcat)                      # independent client cross-checks
/usr/bin/python3 -c 'import kafka' 2>/dev/null || need+=(python3-kafka)
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null || need+=(python3-prometheus-client) # metrics file parsers
/usr/bin/python3 -c 'import ensurepip' 2>/dev/null || need+=(python3-venv) # the venv Confluent's client goes in
command -v java >/dev/null || need+=(openjdk-17-jre-headless)  # real Kafka brokers
command -v mvn >/dev/null || need+=(maven)                      # fetches the broker jars
command -v tmux >/dev/null || need+=(tmux)                      # REPL terminal test
[ -x /usr/sbin/krb5kdc ] || need+=(krb5-kdc krb5-admin-server)   # a real KDC for the GSSAPI test
command -v kinit >/dev/null || need+=(krb5-user)               # kinit fills its ticket cache
command -v luacheck >/dev/null || need+=(lua-check)             # the generated luacheck standard (types/)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps: make test needs these Debian packages; as root run:" >&2
    echo "  apt-get update && apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "deps: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

# A Lua language server's command-line checker for the generated editor types
# (types/kadmin.lua, luaapi/meta): EmmyLua's, which reads LuaLS annotations and
# .luarc.json. No Debian package has one; it builds from crates.io once (about
# three minutes on two cores) into ~/.cargo/bin, in the background while the
# Go modules and the broker jars download, which wait on the network.
cargo_pid=
if ! command -v emmylua_check >/dev/null && [ ! -x "$HOME/.cargo/bin/emmylua_check" ]; then
  if ! command -v cargo >/dev/null; then
    echo "deps: make test needs emmylua_check: install Rust's cargo, then run cargo install --locked emmylua_check" >&2
    exit 1
  fi
  echo "deps: building emmylua_check (once, a few minutes)"
  cargo install --locked --quiet emmylua_check --version 0.25.1 &
  cargo_pid=$!
fi

go mod download
# The patched copies are modules of their own, tested in their directories (make lua-upstream).
(cd third_party/gopher-lua && go mod download)
(cd third_party/jsonschema && go mod download)
# Confluent's Python client with its Avro, Protobuf and JSON Schema serializers (PyPI, no Debian package): the
# independent peer of the schema codecs (integration/single/schemas_test.go), in a venv, once (about a minute).
venv="$HOME/.cache/kadmin-lua/confluent-venv"
if ! "$venv/bin/python" -c 'import confluent_kafka.schema_registry.avro, confluent_kafka.schema_registry.json_schema' 2>/dev/null; then
  echo "deps: installing confluent-kafka into $venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'confluent-kafka[avro,json,protobuf,schemaregistry]==2.16.1'
fi
echo "deps: broker jars in $(bash internal/kafkatest/fetch-jars.sh)"
# The version matrix's other releases (make matrix).
for v in $(grep -v '^#' integration/compat/matrix.txt | cut -d' ' -f1 | sort -u); do
  echo "deps: Kafka $v jars in $(KADMIN_KAFKA_VERSION=$v bash internal/kafkatest/fetch-jars.sh)"
done
if [ -n "$cargo_pid" ]; then
  wait "$cargo_pid" || { echo "deps: building emmylua_check failed" >&2; exit 1; }
  echo "deps: emmylua_check built"
fi
