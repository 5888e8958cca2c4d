GO       ?= go
BIN      ?= bin/troupe
ARGS     ?= help

.PHONY: build test bench lint run

build:
	$(GO) build -o $(BIN) ./cmd/troupe

# Every package runs under the race detector: actors, the writer and the
# subscribers are all concurrent, and the rest is cheap.
test: lint
	$(GO) test -race -count=1 -timeout 15m ./...

# The figures README.md reports: store, session and engine throughput,
# chunk latency, the LLM client's parser, and the RPC mode's start-up,
# memory and forwarding rate, with both --partials modes compared on a
# 20,000-delta reply (rounds alternate; TROUPE_BENCH_ROUNDS, default 5);
# llama-server start and restart times against the fake llama-server.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./persistence/ ./runtime/llm/openai/
	$(GO) test -run '^$$' -bench SessionAppend -benchtime 2s ./actors/session/
	$(GO) test -run '^$$' -bench Engine -benchtime 1x ./actors/session/
	$(GO) test -run '^$$' -bench . -benchtime 1x ./transports/rpc/
	$(GO) test -run '^$$' -bench . -benchtime 10x ./actors/servers/

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

run: build
	./$(BIN) $(ARGS)
