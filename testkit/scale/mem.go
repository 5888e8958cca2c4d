package scale

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// memory is one reading of what the process holds, after a full GC that
// also returns freed memory to the OS.
type memory struct {
	heap       uint64 // bytes of live heap objects
	rss        uint64 // resident set
	goroutines int
}

func readMemory() (memory, error) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, err := procStatus("VmRSS")
	if err != nil {
		return memory{}, err
	}
	return memory{heap: ms.HeapAlloc, rss: rss, goroutines: runtime.NumGoroutine()}, nil
}

// procStatus reads a kB field of /proc/self/status (VmRSS, VmHWM) in bytes.
func procStatus(field string) (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse %s: %w", field, err)
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read memory: %w", err)
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", field)
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
