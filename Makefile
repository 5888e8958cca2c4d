GO       ?= go
BIN      ?= bin/troupe
ARGS     ?= help
# Benchmarks whose figures README.md reports.
BENCH_PKGS = ./persistence/ ./actors/session/ ./runtime/llm/openai/

.PHONY: build test bench lint run

build:
	$(GO) build -o $(BIN) ./cmd/troupe

# Every package runs under the race detector: actors, the writer and the
# subscribers are all concurrent, and the rest is cheap.
test: lint
	$(GO) test -race -count=1 -timeout 15m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s $(BENCH_PKGS)

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

run: build
	./$(BIN) $(ARGS)
