#!/usr/bin/env bash
# make matrix: the version matrix. For each line "VERSION MODE [PKG=TESTS...]"
# of integration/compat/matrix.txt it runs integration/compat (every admin
# function once, checked against docs/compatibility.md) on a broker of that
# Kafka release and mode, then each PKG's tests matching TESTS (the
# regression tests of failures once seen only on that release), one broker
# at a time. Each run's -v log goes to matrix-VERSION-MODE-NAME.log; the
# console gets one line per run, and the failure details when one fails.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
began=$(date +%s)

run() { # version mode package [tests]
  local v=$1 m=$2 pkg=$3 tests=${4:-} log start
  log="matrix-$v-$m-$(basename "$pkg").log"
  start=$(date +%s)
  if KADMIN_KAFKA_VERSION=$v KADMIN_KAFKA_MODE=$m $GO test -count=1 -timeout 10m -v ${tests:+-run "^($tests)\$"} "$pkg" >"$log" 2>&1; then
    echo "matrix: Kafka $v $m $pkg${tests:+ ($tests)}: ok in $(( $(date +%s) - start ))s"
    return 0
  fi
  echo "matrix: Kafka $v $m $pkg${tests:+ ($tests)}: FAILED after $(( $(date +%s) - start ))s; from $log:"
  grep -v -e '^[[:space:]]*\[20' -e '^[[:space:]]*[a-z0-9._-]* = ' "$log" | grep -B25 -A60 -e '--- FAIL' -e '^panic:' -e '^FAIL' | head -200
  exit 1
}

while read -r version mode extra; do
  case "$version" in '' | '#'*) continue ;; esac
  run "$version" "$mode" ./integration/compat/
  for e in $extra; do
    run "$version" "$mode" "${e%%=*}" "${e#*=}"
  done
done < integration/compat/matrix.txt
echo "matrix: done in $(( $(date +%s) - began ))s"
