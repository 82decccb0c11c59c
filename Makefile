# kadmin-lua: `make demo` starts the REPL on an embedded cluster; `make test`
# runs everything CI runs (unit tests with -race, then real-Kafka tests).
GO      ?= go
BIN     := bin/kadmin-lua
PKGS    := ./...

.PHONY: build demo test unit integration docs lint bench clean

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/kadmin-lua

demo: build
	./$(BIN) --embedded

# Unit and API tests against kfake (fast; no JVM).
unit:
	$(GO) test -race -short -count=1 $(PKGS)

# Tests against real Apache Kafka 4.x brokers started from Maven Central jars.
integration:
	$(GO) test -race -count=1 -timeout 25m ./internal/kafkatest/ ./integration/...

# Everything: unit, API, examples, cross-checks and the real-Kafka suites.
test: lint
	$(GO) test -race -count=1 -timeout 28m $(PKGS)

# Regenerate docs/api.md from the declarations (TestAPIDocIsFresh fails when stale).
docs:
	$(GO) test ./luaapi/ -run '^TestAPIDocIsFresh$$' -count=1 -update

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^third_party/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./bench/...

clean:
	rm -rf bin
