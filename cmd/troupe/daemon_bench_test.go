package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// BenchmarkDaemonStart: process start to the first 200 from /v1/health,
// on a fresh home (the store and the token are created) and on an existing
// one (a restart), and the daemon's resident memory once it answered
// (idle, no session).
func BenchmarkDaemonStart(b *testing.B) {
	bin := testkit.BuildTroupe(b)
	b.Run("home=fresh", func(b *testing.B) { benchStart(b, bin, b.TempDir) })
	existing := b.TempDir()
	b.Run("home=existing", func(b *testing.B) { benchStart(b, bin, func() string { return existing }) })
}

func benchStart(b *testing.B, bin string, home func() string) {
	var took []time.Duration
	var rss []float64
	for b.Loop() {
		d, mem := startToHealth(b, bin, home())
		took = append(took, d)
		rss = append(rss, mem)
	}
	slices.Sort(took)
	slices.Sort(rss)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-to-health(median)")
	b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "ms-to-health(p90)")
	b.ReportMetric(rss[len(rss)/2], "MB-idle-rss")
}

func startToHealth(b *testing.B, bin, home string) (time.Duration, float64) {
	cmd := exec.Command(bin, "daemon", "--home", home, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	testkit.NoError(b, err)
	start := time.Now()
	testkit.NoError(b, cmd.Start())
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stderr)
	url := ""
	for url == "" && sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "troupe daemon: listening on "); ok {
			url = u
		}
	}
	if url == "" {
		b.Fatal("the daemon never said where it listens")
	}
	go func() { // keep draining stderr so the daemon never blocks on it
		for sc.Scan() {
		}
	}()
	res, err := http.Get(url + "/v1/health")
	testkit.NoError(b, err)
	res.Body.Close()
	took := time.Since(start)
	if res.StatusCode != http.StatusOK {
		b.Fatalf("health: %d", res.StatusCode)
	}
	return took, vmRSS(b, cmd.Process.Pid)
}

// vmRSS is a process's resident memory in MB.
func vmRSS(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	testkit.NoError(b, err)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
