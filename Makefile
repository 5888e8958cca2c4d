GO       ?= go
BIN      ?= bin/troupe
ARGS     ?= help

.PHONY: proto cluster-test bench-cluster build test bench bench-restart bench-scale bench-daemon-scale bench-ab-quick bench-reference lint run soak fuzz hydra-compat acp-agents web-vendor

build:
	$(GO) build -o $(BIN) ./cmd/troupe

# Every package runs under the race detector: actors, the writer and the
# subscribers are all concurrent, and the rest is cheap. The web page's
# browser tests keep their screenshots in artifacts/web.
test: lint
	TROUPE_WEB_ARTIFACTS=$(or $(TROUPE_WEB_ARTIFACTS),$(CURDIR)/artifacts/web) $(GO) test -race -count=1 -timeout 15m ./...

# The figures README.md reports: store throughput (one session and
# 10,000 interleaved), session and engine throughput with the largest WAL,
# chunk latency, CPU and allocations per streamed delta of the LLM
# clients (chat completions' own parser; the Responses API's, Gemini's and
# Anthropic's beside it),
# and the RPC mode's start-up,
# memory, forwarding rate and CPU time per delta, with both --partials
# modes compared on a 20,000-delta reply (rounds alternate;
# TROUPE_BENCH_ROUNDS, default 5); the daemon's start to its first health
# answer, its idle memory, `troupe version` to its exit and --json-stream
# to its ready line, 100 sessions created and prompted at once over
# ACP WebSocket, the REST history's lines/s, and ACP: updates/s to one
# client, deliveries/s to 10, attach replay; llama-server start and
# restart times against the fake llama-server; the latency a
# one-transformer chain adds to session/prompt and session/update; with
# HYDRA_CLI set, bench-reference below; and what 100,000 cold sessions
# in the daemon's home cost: start-up and memory beside an empty home,
# REST lists (every session, a directory's, the warm ones, pages), ACP
# session/list, troupe session list and a search (COLD_SESSIONS,
# COLD_ROUNDS).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./persistence/ ./runtime/llm/openai/ ./runtime/llm/openairesponses/ ./runtime/llm/google/ ./runtime/llm/anthropic/
	$(GO) test -run '^$$' -bench SessionAppend -benchtime 2s ./actors/sessions/internal/session/
	$(GO) test -run '^$$' -bench RecoveryFold -benchtime 2s ./actors/sessions/internal/session/
	$(GO) test -run '^$$' -bench Engine -benchtime 1x ./actors/sessions/internal/session/
	$(GO) test -run '^$$' -bench . -benchtime 1x ./transports/rpc/
	$(GO) test -run '^$$' -bench DaemonStart -benchtime 20x ./cmd/troupe/
	$(GO) test -run '^$$' -bench '^BenchmarkStartup$$' -benchtime 20x ./cmd/troupe/
	$(GO) test -run '^$$' -bench DaemonSessions -benchtime 5x ./cmd/troupe/
	$(GO) test -run '^$$' -bench DaemonAgentStream -benchtime 3x ./cmd/troupe/
	$(GO) test -run '^$$' -bench DaemonAgentSessions -benchtime 3x ./cmd/troupe/
	$(GO) test -run '^$$' -bench DaemonCLI -benchtime 10x ./cmd/troupe/
	$(GO) test -run '^$$' -bench DaemonColdSessions -benchtime 1x -timeout 30m ./cmd/troupe/
	$(GO) test -run '^$$' -bench DaemonMCPPrompt -benchtime 50x ./cmd/troupe/
	$(GO) test -run '^$$' -bench TransformerChain -benchtime 1x ./cmd/troupe/
	$(GO) test -run '^$$' -bench History -benchtime 3x ./transports/rest/
	$(GO) test -run '^$$' -bench . -benchtime 1x ./transports/acp/
	$(GO) test -run '^$$' -bench . -benchtime 2s ./transports/terminal/
	$(GO) test -run '^$$' -bench . -benchtime 10x ./actors/servers/
	$(GO) test -run '^$$' -bench RingWriteRead -benchtime 2s ./transports/stdinring/
	$(GO) test -run '^$$' -bench CatStream -benchtime 3x ./cmd/troupe/
	$(GO) test -run '^$$' -bench MCPCall -benchtime 2s ./actors/sessions/mcp/
	$(GO) test -run '^$$' -bench . -benchtime 2s ./runtime/agentjs/
	@if [ -n "$(HYDRA_CLI)" ]; then $(MAKE) --no-print-directory bench-reference; fi

# The external-agent figures beside the reference daemon (Hydra,
# hydra-acp 0.1.161, built from its public source): the scripted ACP agent
# behind each daemon, the same clients in front, the daemons alternating
# round after round (REFBENCH_ROUNDS, default 3): updates/s to 1 client
# and to 10, attach replay, 100 sessions at once beside 100 bare agents,
# each daemon's CPU time and peak memory. Needs HYDRA_CLI (Hydra's
# dist/cli.js) and Node 22 (NODE, else node on PATH), so it is behind the
# build tag refbench and not part of make test; make bench runs it when
# HYDRA_CLI is set. Prints the table and writes bin/reference-bench.md.
bench-reference:
	@mkdir -p bin; rm -f bin/reference-bench.md
	@HYDRA_CLI=$(HYDRA_CLI) NODE=$(NODE) REFBENCH_OUT=$(CURDIR)/bin/reference-bench.md \
		$(GO) test -tags refbench -run '^TestReference$$' -count=1 -timeout 30m ./testkit/refbench/; \
		status=$$?; cat bin/reference-bench.md 2>/dev/null; exit $$status

# The two scale benchmarks, each A/B: the BASE revision (default HEAD~1,
# the previous commit, built in a temporary git worktree removed after)
# against the working tree's build, alternating ROUNDS runs of each (default
# 3) for every N in SCALE_N; one table per N of each figure's median and
# range on both sides and the change (testkit/cmd/benchab; BENCHMARKS.md
# says what each figure measures). Run them on a machine as quiet as you
# can: the tables say the load average.
#
# bench-scale: N concurrent scripted sessions in one process
# (testkit/cmd/troupe-scale, built from each side's tree), each run its own
# process so each peak memory is its own.
#
# bench-daemon-scale: N sessions through the real daemon binary over ACP
# WebSocket (20 connections), each running 3 turns whose first answer
# calls read, against the scripted LLM server over HTTP, while a probe
# session measures chunk latency (BenchmarkDaemonScale in cmd/troupe, built
# once from the working tree and run against each side's daemon binary).
# 10,000 takes about 2 minutes and 3 GB a run. SCALE_DELTA_GAP=100ms paces
# every answer's deltas that far apart (a model's pace, not flat out).
#
# bench-ab-quick: both at N = 100, 2 rounds (a minute or two).
BASE    ?= HEAD~1
ROUNDS  ?= 3
SCALE_N ?= 100 1000 10000
bench-scale bench-daemon-scale:
	$(GO) build -o bin/benchab ./testkit/cmd/benchab
	./bin/benchab -bench $(@:bench-%=%) -base '$(BASE)' -rounds $(ROUNDS) -n '$(SCALE_N)'

bench-ab-quick:
	@$(MAKE) --no-print-directory bench-scale bench-daemon-scale SCALE_N=100 ROUNDS=2

# A restart's cost by history length: one session of 1,000 and one of
# 100,000 events killed and recovered, RESTART_COUNT runs each (medians and
# ranges: run it on a quiet machine). cold-ms is the first recovery, with
# no fold snapshot yet (the whole log); ns/op each one after, from the
# snapshot; events-read/op what each read of the log. Then an ACP attach
# after_message the last update of a session of 1,000 and 92,000 events,
# from the attach snapshot and from seq 1.
RESTART_COUNT ?= 5
bench-restart:
	$(GO) test -run '^$$' -bench KillToRecovered -benchtime 20x -count $(RESTART_COUNT) ./actors/sessions/internal/session/
	$(GO) test -run '^$$' -bench AttachAfterMessage -benchtime 10x -count $(RESTART_COUNT) ./transports/acp/

# 100 SIGKILL/restart cycles of the daemon under 200 scripted sessions with
# reattaching clients, the invariants checked after each (troupe sim; not
# part of make test). SOAK=testkit/sim/testdata/soak-short.yml runs 10;
# SOAK_ARGS="--work DIR" keeps the home and each daemon's stderr.
SOAK ?= testkit/sim/testdata/soak.yml
soak: build
	./$(BIN) sim $(SOAK) --embedded $(SOAK_ARGS)

# Every decoder's fuzz target for FUZZTIME each (a crash found is kept in
# the package's testdata/fuzz as a regression case).
FUZZTIME ?= 20s
# Minimizing each new input for Go's default minute left FuzzBundleImport's
# large inputs no time to fuzz.
FUZZMINIMIZETIME ?= 5s
FUZZ_TARGETS = \
	runtime/llm/openai:FuzzParseFrame runtime/llm/openairesponses:FuzzReadEvents \
	runtime/tooltext:FuzzParse runtime/gguf:FuzzRead \
	runtime/jsontext:FuzzAppendUnescaped runtime/jsontext:FuzzAppendString \
	runtime/modelconfig:FuzzParseYAML runtime/llamaconfig:FuzzParseYAML \
	transports/rpc:FuzzDecode transports/rpc:FuzzArgsPrefix transports/jsonstream:FuzzDecode \
	transports/acp:FuzzDecode transports/hugind:FuzzDecode transports/projection:FuzzDecodeDelta \
	transports/rest:FuzzBodies transports/rest:FuzzEventFilter transports/daemon:FuzzAuthBodies \
	transports/rest:FuzzBundleImport \
	testkit/llmserver:FuzzParseScript testkit/sim:FuzzParse
fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; echo "== $$pkg $$fn"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) ./$$pkg/ || exit 1; done

# Hydra's own clients (hydra-acp 0.1.161: CLI verbs, cat, the acp shim,
# the TUI in tmux) against troupe daemon through a recording proxy, one
# row each; prints the matrix and writes it to bin/hydra-compat-matrix.txt.
# Needs HYDRA_CLI (the client's dist/cli.js), Node >= 22.19 (NODE, else
# node on PATH) and tmux, so it is not part of make test (see README.md,
# "Using Hydra's own clients"). UPDATE=1 records the rows that pass into
# testkit/hydracompat/testdata, which make test replays without Node.
hydra-compat:
	@mkdir -p bin
	@HYDRA_COMPAT_MATRIX=$(CURDIR)/bin/hydra-compat-matrix.txt $(GO) test -tags hydracompat -run '^TestHydraClients$$' \
		-count=1 -timeout 30m ./testkit/hydracompat/ $(if $(UPDATE),-args -update); \
		status=$$?; cat bin/hydra-compat-matrix.txt; exit $$status

# Real ACP agents from npm (qwen-code's `qwen --acp`, opencode's `opencode
# acp`) as session backends of a real troupe daemon, against the scripted
# model server: prompt, a permission answered by one client while another
# watches, cancel, kill and load, daemon restart; prints the matrix and
# writes it to bin/acp-agents-matrix.txt. Needs the agents installed
# (README.md, "External ACP agents"): QWEN and OPENCODE are their
# programs (either may be left out), NODE_DIR the directory of Node 22's
# node. Not part of make test. UPDATE=1 records the daemon<->agent stdio
# into testkit/agentcompat/testdata, which make test replays without Node.
acp-agents:
	@mkdir -p bin
	@AGENTCOMPAT_MATRIX=$(CURDIR)/bin/acp-agents-matrix.txt AGENTCOMPAT_QWEN=$(QWEN) AGENTCOMPAT_OPENCODE=$(OPENCODE) \
		AGENTCOMPAT_NODE_DIR=$(if $(NODE_DIR),$(NODE_DIR),$(dir $(shell command -v node))) \
		$(GO) test -tags agentcompat -run '^TestACPAgents$$' -count=1 -v -timeout 30m ./testkit/agentcompat/ $(if $(UPDATE),-args -update); \
		status=$$?; cat bin/acp-agents-matrix.txt; exit $$status

# The web page's libraries (transports/web/assets/vendor), fetched from
# npm at the versions transports/web/vendor.sh pins and checked against
# transports/web/vendor.sum; VERIFY=0 rewrites the sums after a bump.
web-vendor:
	transports/web/vendor.sh

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

run: build
	./$(BIN) $(ARGS)

# proto regenerates the Go of the messages that cross cluster members
# (protoc from Debian's protobuf-compiler; protoc-gen-go at the version of
# google.golang.org/protobuf in go.mod).
PROTOC_GEN_GO_VERSION = $(shell $(GO) list -m -f '{{.Version}}' google.golang.org/protobuf)
proto:
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	cd actors/sessions/cluster/clusterpb && PATH="$$($(GO) env GOPATH)/bin:$$PATH" protoc --go_out=. --go_opt=paths=source_relative session.proto

# cluster-test runs the cluster's tests that start members: one in process
# beside a daemon binary, and daemon binaries on loopback over a real
# PostgreSQL and etcd (without -race: protoactor's cluster races with
# itself, ARCHITECTURE.md); the member-loss test streams CLUSTER_SESSIONS
# sessions (make test: 24).
CLUSTER_SESSIONS ?= 300
cluster-test:
	$(GO) test -count=1 -run 'TestCluster|TestRequestsCross|TestRepliesCross|TestEventsCross' ./actors/sessions/cluster/
	TROUPE_CLUSTER_SESSIONS=$(CLUSTER_SESSIONS) $(GO) test -count=1 -timeout 20m -run 'TestDaemonCluster|TestDaemonKeepsSessionsInPostgres' ./cmd/troupe/

# bench-cluster times one streamed run (500 deltas) through real daemons:
# one on SQLite, one on PostgreSQL, and two cluster members on PostgreSQL
# with the client on the member not hosting the session. Each round runs
# the three in turn, so they alternate (BENCH_COUNT rounds; go test's own
# -count would run each one's rounds back to back).
BENCH_COUNT ?= 5
bench-cluster:
	for i in $$(seq $(BENCH_COUNT)); do $(GO) test -count=1 -run '^$$' -bench BenchmarkDaemonClusterStream -benchtime 20x ./cmd/troupe/ | grep '^Benchmark' || exit 1; done
