package main

// figures are one run's parsed figures, by key: a BenchmarkDaemonScale
// metric's unit, or a troupe-scale column's head.
type figures map[string]float64

// figure is one row of the tables: the key a run's figures hold it under,
// its label, and how its values print.
type figure struct {
	key, label string
	unit       string // after the number; "" for a count
	decimals   int
}

// daemonFigures are BenchmarkDaemonScale's metrics (cmd/troupe,
// daemon_scale_bench_test.go); BENCHMARKS.md says what each measures.
var daemonFigures = []figure{
	{key: "ms-delta-gap", label: "the model's gap between deltas (SCALE_DELTA_GAP)", unit: "ms", decimals: 0},
	{key: "s-wall", label: "wall", unit: "s", decimals: 2},
	{key: "events", label: "committed events", decimals: 0},
	{key: "events/s", label: "committed events/s", decimals: 0},
	{key: "s-cpu-daemon", label: "CPU, daemon", unit: "s", decimals: 2},
	{key: "s-cpu-llm+clients", label: "CPU, client side (LLM servers, router, clients)", unit: "s", decimals: 2},
	{key: "µs-cpu-daemon/event", label: "daemon CPU per committed event", unit: "µs", decimals: 1},
	{key: "MB-peak-rss", label: "peak resident memory (VmHWM)", unit: "MB", decimals: 0},
	{key: "KB-rss/idle-session", label: "resident memory per idle live session", unit: "KB", decimals: 1},
	{key: "µs-chunk-p50", label: "chunk latency under load, p50", unit: "µs", decimals: 0},
	{key: "µs-chunk-p99", label: "chunk latency under load, p99", unit: "µs", decimals: 0},
	{key: "chunks-probed", label: "chunks the latency is of", decimals: 0},
}

// scaleFigures are troupe-scale's columns (testkit/cmd/troupe-scale).
var scaleFigures = []figure{
	{key: "wall", label: "wall", unit: "s", decimals: 2},
	{key: "committed events", label: "committed events", decimals: 0},
	{key: "events/s", label: "committed events/s", decimals: 0},
	{key: "CPU", label: "CPU, the process", unit: "s", decimals: 2},
	{key: "CPU/event", label: "CPU per committed event", unit: "µs", decimals: 1},
	{key: "peak RSS (VmHWM)", label: "peak resident memory (VmHWM)", unit: "MB", decimals: 0},
	{key: "idle RSS/session", label: "resident memory per idle live session", unit: "KB", decimals: 1},
	{key: "idle heap/session", label: "heap per idle live session", unit: "KB", decimals: 1},
	{key: "idle goroutines/session", label: "goroutines per idle live session", decimals: 2},
	{key: "chunk p50", label: "chunk latency under load, p50", unit: "µs", decimals: 0},
	{key: "chunk p99", label: "chunk latency under load, p99", unit: "µs", decimals: 0},
	{key: "chunks sampled", label: "chunks the latency is of", decimals: 0},
}
