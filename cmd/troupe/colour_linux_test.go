package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/troupehq/troupe/testkit"
)

const ansiEscape = "\x1b["

// Text logs carry colours on a terminal only, and not there either when
// NO_COLOR is set.
func TestLogColourOnlyOnATerminal(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	args := []string{"append", "s", "--home", t.TempDir(), "--log-level", "debug"}

	p := testkit.Start(t, bin, []string{"NO_COLOR="}, args...)
	_ = p.Stdin.Close()
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	if !strings.Contains(p.Stderr(), "runtime booted") || strings.Contains(p.Stderr(), ansiEscape) {
		t.Fatalf("stderr to a pipe: %q", p.Stderr())
	}

	if out := stderrOnTerminal(t, bin, "", args); !strings.Contains(out, "runtime booted") || !strings.Contains(out, ansiEscape) {
		t.Fatalf("stderr to a terminal has no colour: %q", out)
	}
	if out := stderrOnTerminal(t, bin, "1", args); !strings.Contains(out, "runtime booted") || strings.Contains(out, ansiEscape) {
		t.Fatalf("stderr to a terminal with NO_COLOR: %q", out)
	}
}

// stderrOnTerminal runs bin with its stderr on a new pseudo-terminal and
// returns what it wrote there.
func stderrOnTerminal(t *testing.T, bin, noColor string, args []string) string {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR="+noColor)
	cmd.Stdin = strings.NewReader("")
	cmd.Stderr = slave
	testkit.NoError(t, cmd.Start())
	_ = slave.Close() // the child holds the only copy: its exit ends reads
	var out bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(&out, master) // ends with EIO once the child is gone
	}()
	testkit.NoError(t, cmd.Wait())
	select {
	case <-read:
	case <-time.After(10 * time.Second):
		t.Fatal("terminal output did not end")
	}
	return out.String()
}

// openPTY opens a pseudo-terminal pair through /dev/ptmx.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var n uint32
	var unlock int32
	for _, c := range []struct {
		req uintptr
		arg unsafe.Pointer
	}{{syscall.TIOCGPTN, unsafe.Pointer(&n)}, {syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)}} {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), c.req, uintptr(c.arg)); errno != 0 {
			master.Close()
			t.Skipf("pseudo-terminal ioctl: %v", errno)
		}
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("open pseudo-terminal: %v", err)
	}
	return master, slave
}
