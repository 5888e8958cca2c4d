package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/troupehq/troupe/testkit"
)

// Each session of BenchmarkDaemonScale: 3 prompts; every answer streams
// scaleDeltas one-token deltas, and the first also calls read.
const (
	scalePrompts = 3
	scaleDeltas  = 50
	scaleConns   = 20
	// scaleCreating bounds the session/new calls in flight: 10,000 at once
	// overrun the session registry's 30 s request bound inside the daemon
	// ("future: timeout", actors/sessions); testkit/scale bounds
	// its creating the same way (512 workers). The conversations all run
	// at once.
	scaleCreating = 512
)

// BenchmarkDaemonScale: N sessions at once through the real daemon over
// ACP WebSocket, scaleConns connections each creating N/scaleConns
// sessions, each session running a 3-turn conversation whose first answer
// calls read. Wall time is from the first session/new to the last
// prompt's answer. Every prompt must answer end_turn and every session's
// tool call must complete, or the benchmark fails. Each N runs its own
// daemon on a fresh home, so its peak memory is its own. While the load
// runs, a probe session on a connection of its own measures chunk latency
// (daemon_scale_probe_test.go).
//
// SCALE_N (a space-separated list) replaces the Ns 100, 1,000 and 10,000;
// SCALE_DELTA_GAP (a duration, e.g. 100ms) paces every answer's deltas
// that far apart, a model's pace rather than flat out, so chunk latency
// can be measured under a load the daemon keeps up with;
// TROUPE_BENCH_DAEMON names a troupe binary to run as the daemon instead
// of one built from this tree, so one build of this benchmark measures two
// revisions' daemons alike (testkit/cmd/benchab, make bench-daemon-scale).
func BenchmarkDaemonScale(b *testing.B) {
	ns, err := scaleNs(os.Getenv("SCALE_N"))
	testkit.NoError(b, err)
	gap, err := scaleGap(os.Getenv("SCALE_DELTA_GAP"))
	testkit.NoError(b, err)
	for _, n := range ns {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			for b.Loop() {
				benchDaemonScale(b, n, gap)
			}
		})
	}
}

func benchDaemonScale(b *testing.B, n int, gap time.Duration) {
	llm := scaleLLM(b, scaleDeltas, gap)
	env := []string{"OPENAI_BASE_URL=" + llm.url + "/v1", "OPENAI_API_KEY="}
	// It measures the daemon's own process (CPU, memory).
	prof := scaleProfiles(b, n)
	var d *daemonProc
	if prof.bin != "" {
		d = startDaemonBinaryOf(b, prof.bin, b.TempDir(), append(env, prof.env...), "--provider", "openai", "--model", "tiny")
	} else {
		d = startScaleDaemon(b, env, "--provider", "openai", "--model", "tiny")
	}
	cwd := b.TempDir()
	testkit.NoError(b, os.WriteFile(filepath.Join(cwd, scaleFile), []byte("hello\n"), 0o644))
	pid := d.proc.Pid()
	probe := startProbe(b, d, cwd, llm.clock)

	conns := make([]*scaleConn, scaleConns)
	for i := range conns {
		c, err := dialScale(d.wsURL(""), d.token, nil)
		testkit.NoError(b, err)
		b.Cleanup(c.close)
		conns[i] = c
	}
	before := procKB(b, pid, "VmRSS")
	events0 := eventsAppended(b, d)
	daemonCPU0, selfCPU0 := procCPU(b, pid), selfCPU()

	start := time.Now()
	probe.measure()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	creating := make(chan struct{}, scaleCreating)
	for i := range n {
		c := conns[i%len(conns)]
		wg.Go(func() {
			if err := c.conversation(cwd, creating); err != nil {
				errs <- fmt.Errorf("session %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	lat, err := probe.stop()
	testkit.NoError(b, err)
	daemonCPU, selfCPUUsed := procCPU(b, pid)-daemonCPU0, selfCPU()-selfCPU0
	events := eventsAppended(b, d) - events0
	close(errs)
	if failed := len(errs); failed > 0 {
		b.Fatalf("%d of %d sessions failed; the first: %v", failed, n, <-errs)
	}
	tools := 0
	for _, c := range conns {
		tools += c.toolsDone()
	}
	if tools != n {
		b.Fatalf("%d of %d sessions saw their read complete", tools, n)
	}
	// The sessions stay live: every connection is still open and attached.
	after := procKB(b, pid, "VmRSS")
	b.ReportMetric(wall.Seconds(), "s-wall")
	b.ReportMetric(float64(procKB(b, pid, "VmHWM"))/1024, "MB-peak-rss")
	b.ReportMetric(float64(after-before)/float64(n), "KB-rss/idle-session")
	b.ReportMetric(daemonCPU.Seconds(), "s-cpu-daemon")
	// The benchmark's own process holds the scripted LLM servers, their
	// router and the ACP clients: an upper bound on the LLM side's share.
	b.ReportMetric(selfCPUUsed.Seconds(), "s-cpu-llm+clients")
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(events)/wall.Seconds(), "events/s")
	b.ReportMetric(float64(daemonCPU.Nanoseconds())/1e3/float64(max(events, 1)), "µs-cpu-daemon/event")
	reportChunkLatency(b, lat)
	if gap > 0 {
		b.ReportMetric(float64(gap.Microseconds())/1e3, "ms-delta-gap")
	}
	prof.write(b, d)
}

// scaleGap parses SCALE_DELTA_GAP; empty is 0, deltas at once.
func scaleGap(s string) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	gap, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || gap < 0 {
		return 0, fmt.Errorf("SCALE_DELTA_GAP: %q is not a duration of 0 or more", s)
	}
	return gap, nil
}

// scaleNs parses SCALE_N, a space-separated list of session counts; empty
// is 100, 1,000 and 10,000.
func scaleNs(list string) ([]int, error) {
	if strings.TrimSpace(list) == "" {
		return []int{100, 1000, 10000}, nil
	}
	var ns []int
	for _, f := range strings.Fields(list) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("SCALE_N: %q is not a positive count", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// startScaleDaemon runs the daemon binary TROUPE_BENCH_DAEMON names, else
// this tree's, on a fresh home and port.
func startScaleDaemon(b *testing.B, env []string, args ...string) *daemonProc {
	bin := os.Getenv("TROUPE_BENCH_DAEMON")
	if bin == "" {
		return startDaemonBinary(b, b.TempDir(), env, args...)
	}
	home := b.TempDir()
	p := testkit.Start(b, bin, env, append([]string{"daemon", "--home", home, "--listen", "127.0.0.1:0"}, args...)...)
	return daemonOf(b, binaryDaemon{p}, home)
}

// eventsAppended is the daemon's count of committed events
// (troupe_events_appended_total on its /metrics).
func eventsAppended(b testing.TB, d *daemonProc) int64 {
	req, err := http.NewRequest(http.MethodGet, d.url+"/metrics", nil)
	testkit.NoError(b, err)
	req.Header.Set("Authorization", "Bearer "+d.token)
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(b, err)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("GET /metrics: %s", res.Status)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(res.Body)
	testkit.NoError(b, err)
	f, ok := fams["troupe_events_appended_total"]
	if !ok || len(f.Metric) != 1 || f.Metric[0].Counter == nil {
		b.Fatalf("GET /metrics: no troupe_events_appended_total counter")
	}
	return int64(f.Metric[0].Counter.GetValue())
}

// daemonProfiles is how one run of BenchmarkDaemonScale profiles its
// daemon: with $TROUPE_BENCH_PPROF naming a directory, the daemon is a
// binary built with -tags troupe_pprof (cmd/troupe/profile.go), profiling
// its CPU from its start, and writing daemon-cpu-N.pprof and, with every
// session idle, daemon-heap-N.pprof there.
type daemonProfiles struct {
	bin      string
	env      []string
	cpu, mem string
}

func scaleProfiles(b *testing.B, n int) daemonProfiles {
	dir := os.Getenv("TROUPE_BENCH_PPROF")
	if dir == "" {
		return daemonProfiles{} // no profiles: startScaleDaemon's binary
	}
	p := daemonProfiles{
		bin: testkit.BuildTroupeTags(b, "troupe_pprof"),
		cpu: filepath.Join(dir, fmt.Sprintf("daemon-cpu-%d.pprof", n)),
		mem: filepath.Join(dir, fmt.Sprintf("daemon-heap-%d.pprof", n)),
	}
	_ = os.Remove(p.mem)
	p.env = []string{"TROUPE_CPUPROFILE=" + p.cpu, "TROUPE_MEMPROFILE=" + p.mem}
	return p
}

// write has the daemon end its CPU profile and write its heap profile,
// and waits for the heap profile.
func (p daemonProfiles) write(b *testing.B, d *daemonProc) {
	if p.mem == "" {
		return
	}
	d.proc.Signal(syscall.SIGUSR2)
	testkit.Eventually(b, time.Minute, "the daemon's heap profile", func() bool {
		st, err := os.Stat(p.mem)
		return err == nil && st.Size() > 0
	})
	b.Logf("daemon profiles: %s %s", p.cpu, p.mem)
}

// procKB reads a kB field (VmRSS, VmHWM) of a process's /proc status.
func procKB(b *testing.B, pid int, field string) int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	testkit.NoError(b, err)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			testkit.NoError(b, err)
			return kb
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// procCPU is a process's user and system time from /proc/<pid>/stat.
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	testkit.NoError(b, err)
	// The command name may hold spaces: count from the last ')'.
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	testkit.NoError(b, err)
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	testkit.NoError(b, err)
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
