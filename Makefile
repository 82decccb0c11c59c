# kadmin-lua: `make demo` starts the REPL on an embedded cluster; `make test`
# runs everything CI runs (unit tests with -race, then real-Kafka tests).
SHELL   := /bin/bash
GO      ?= go
BIN     := bin/kadmin-lua
PKGS    := ./...
# Packages that start real Kafka brokers (JVMs); everything else runs on kfake.
KAFKA_PKGS := ./internal/kafkatest/ ./integration/...

.PHONY: build demo deps test unit lua-upstream integration matrix docs lint fuzz bench clean

# The version `kadmin-lua --version` prints: git describe in a checkout
# (v1.2.0, v1.2.0-3-g36f4d38, 36f4d38-dirty); outside git nothing is
# stamped and the binary falls back to its module version, else "dev".
# `make build VERSION=v1.2.3` sets it by hand.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS := $(if $(VERSION),-X main.version=$(VERSION))

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kadmin-lua

demo: build
	./$(BIN) --embedded

# Unit and API tests against kfake (fast; no JVM).
unit:
	$(GO) test -race -short -count=1 $(PKGS)

# Tests against real Apache Kafka 4.x brokers started from Maven Central jars.
# The full -v log goes to integration.log; the console shows each suite's
# banner (which Kafka, how many nodes), test log lines, failures and results.
integration:
	@set -o pipefail; $(GO) test -race -count=1 -timeout 25m -v $(KAFKA_PKGS) 2>&1 | tee integration.log | \
	  grep -E --line-buffered '^(Apache Kafka|--- FAIL|FAIL|ok |panic:)|^ +[A-Za-z0-9_]+\.go:[0-9]+:'; \
	status=$$?; if [ $$status -ne 0 ]; then \
	  echo "--- failure details from integration.log ---"; grep -B3 -A40 -e '--- FAIL' -e '^panic:' integration.log | head -600; \
	fi; exit $$status

# The version matrix: integration/compat (every admin function once, checked
# against docs/compatibility.md) and a few regression tests on each other
# Kafka release and mode of integration/compat/matrix.txt, one broker at a
# time (tools/matrix.sh; a log per run in matrix-*.log).
matrix:
	@GO=$(GO) bash tools/matrix.sh

# The patched gopher-lua copy (a module of its own, outside ./...) against
# upstream's own suite: the Lua 5.1 and glua script tests (about 10 s).
# No -race: upstream's TestLocalVarFree races on its own counter. Then the
# patched jsonschema copy against upstream's tests (under a second).
lua-upstream:
	cd third_party/gopher-lua && $(GO) test -count=1 -timeout 5m ./...
	cd third_party/jsonschema && $(GO) test -count=1 -timeout 5m ./...

# What the tests need beyond Go: Debian packages (installed when root, else
# the apt-get line is printed), Go modules, the Kafka broker jars.
deps:
	@bash tools/deps.sh

# Everything: unit, API, examples, cross-checks, the patched Lua runtime's
# upstream suite, then the real-Kafka suites. It sets itself up first (deps).
test: deps lint
	$(GO) test -race -count=1 -timeout 15m $$($(GO) list $(PKGS) | grep -v -e /integration/ -e /internal/kafkatest)
	$(MAKE) --no-print-directory fuzz FUZZTIME=20s
	$(MAKE) --no-print-directory lua-upstream
	$(MAKE) --no-print-directory integration
	$(MAKE) --no-print-directory matrix

# Regenerate docs/api.md and docs/compatibility.md from the declarations
# (TestAPIDocIsFresh and TestCompatibilityDocIsFresh fail when stale), and
# the editor types and luacheck standard in types/ (TestDefinitionsAreFresh).
docs:
	$(GO) test ./luaapi/ -run '^(TestAPIDocIsFresh|TestCompatibilityDocIsFresh)$$' -count=1 -update
	$(GO) test ./scripts/ -run '^TestRunbooksDocIsFresh$$' -count=1 -update
	$(GO) test ./luaapi/meta/ -run '^TestDefinitionsAreFresh$$' -count=1 -update

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^third_party/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Random Lua values through every declared function (FuzzCallArguments),
# and random chunks through the data-only spec reader, which must read
# them as gopher-lua does or not at all (FuzzLiteralSpecAgreesWithLua);
# `make fuzz FUZZTIME=10m` for a longer run. New failures land in
# luaapi/testdata/fuzz/ and then run in every `go test`.
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzCallArguments$$' -fuzztime $(FUZZTIME) ./luaapi/
	$(GO) test -run '^$$' -fuzz '^FuzzLiteralSpecAgreesWithLua$$' -fuzztime $(FUZZTIME) ./luaapi/

# Whole-process runs (kadmin-lua beside a plain kadm program or a hello
# world, interleaved rounds, medians, the ratio table of docs/benchmarks.md;
# a few minutes), then the Go benchmarks of the hot paths.
bench:
	$(GO) run ./bench/cmd/benchwhole
	$(GO) test -run '^$$' -bench . -benchmem ./bench/ ./luaapi/ ./luaapi/check/ ./cmd/kadmin-lua/ ./engine/moves/ ./engine/placement/

clean:
	rm -rf bin
