package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/testkit/pgtest"
)

// benchDeltas is how many content deltas each benchmarked run streams.
const benchDeltas = 500

// BenchmarkDaemonClusterStream times one prompt through real daemons, the
// same run (benchDeltas streamed deltas) three ways: one daemon on its
// SQLite file; one daemon on PostgreSQL; two cluster members on one
// PostgreSQL, the client on the member that does not host the session.
// Per run: prompt to first update (the first agent_message_chunk the
// client reads), stream wall time per delta, the daemons' CPU per delta
// (every member's, from /proc) and PostgreSQL's (its server and
// backends). `make bench-cluster` runs it.
func BenchmarkDaemonClusterStream(b *testing.B) {
	srv := llmserver.New(b, llmserver.Script{Model: "tiny", Default: ptr(llmserver.Steps(llmserver.Tokens(benchDeltas, "tok ")))})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	flags := []string{"--provider", "openai", "--model", "tiny", "--approval-mode", "yolo"}
	b.Run("sqlite-single", func(b *testing.B) {
		d := startDaemonBinary(b, b.TempDir(), env, flags...)
		benchStream(b, d.dialACP(b, "bench"), "", []*daemonProc{d}, nil)
	})
	b.Run("postgres-single", func(b *testing.B) {
		d := startDaemonBinary(b, b.TempDir(), env, append(flags, "--store", pgtest.Database(b))...)
		benchStream(b, d.dialACP(b, "bench"), "", []*daemonProc{d}, pgtest.Shared(b))
	})
	b.Run("postgres-cluster-remote", func(b *testing.B) {
		cl := startPGClusterOn(b, 2, "bench", srv, nil)
		members := cl.members
		c := members[0].dialACP(b, "bench")
		// A session the cluster places on the other member.
		other := cl.self(b, 1)
		for range 64 {
			id, _ := c.NewSession(b.TempDir())
			if hostOf(b, members[0], other) > 0 {
				benchStream(b, c, id, members, pgtest.Shared(b))
				return
			}
			_ = id
		}
		b.Fatal("no session of 64 was placed on the other member")
	})
}

// hostOf is how many sessions member address hosts, as d's health says.
func hostOf(b testing.TB, d *daemonProc, address string) int {
	for _, m := range clusterHealth(b, d).Members {
		if m.Address == address {
			return m.Sessions
		}
	}
	return 0
}

// benchStream prompts session id (a new one when "") over c once per
// iteration and reports the figures; procs are the daemons whose CPU
// counts, pg the PostgreSQL server whose CPU is reported beside (nil: none).
func benchStream(b *testing.B, c *acpclient.Client, id string, procs []*daemonProc, pg *pgtest.Server) {
	if id == "" {
		id, _ = c.NewSession(b.TempDir())
	}
	var first, stream, cpu, pgCPU time.Duration
	runs := 0
	for b.Loop() {
		before := cpuOf(b, procs)
		var pgBefore time.Duration
		if pg != nil {
			pgBefore = pg.CPU()
		}
		start := time.Now()
		req := c.Prompt(id, "go")
		var firstAt time.Time
		c.Until(func(f acpclient.Frame) bool {
			if firstAt.IsZero() && strings.Contains(f.Raw, `"agent_message_chunk"`) {
				firstAt = time.Now()
			}
			return f.Answers(req)
		})
		end := time.Now()
		first += firstAt.Sub(start)
		stream += end.Sub(firstAt)
		cpu += cpuOf(b, procs) - before
		if pg != nil {
			pgCPU += pg.CPU() - pgBefore
		}
		runs++
	}
	b.ReportMetric(float64(first.Microseconds())/float64(runs), "µs/first-update")
	b.ReportMetric(float64(stream.Nanoseconds())/1e3/float64(runs*benchDeltas), "µs-wall/delta")
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(runs*benchDeltas), "µs-cpu/delta")
	b.ReportMetric(float64(pgCPU.Nanoseconds())/1e3/float64(runs*benchDeltas), "µs-pg-cpu/delta")
}

// cpuOf sums the user and system CPU of procs (/proc/PID/stat, in clock
// ticks of 10 ms: a run is long enough for that to count).
func cpuOf(b testing.TB, procs []*daemonProc) time.Duration {
	var total time.Duration
	for _, d := range procs {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(d.proc.Pid()) + "/stat")
		testkit.NoError(b, err)
		fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		utime, _ := strconv.ParseInt(fields[11], 10, 64)
		stime, _ := strconv.ParseInt(fields[12], 10, 64)
		total += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return total
}
