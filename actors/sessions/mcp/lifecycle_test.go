//go:build linux

package mcp_test

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/runtime/tools"
	"github.com/troupehq/troupe/testkit"
)

// serverPID asks the test server for its process id through the pid tool.
func serverPID(t *testing.T, pidTool tools.Tool) int {
	t.Helper()
	r := run(t, pidTool, `{}`)
	pid, err := strconv.Atoi(r.Output)
	if err != nil {
		t.Fatalf("pid tool: %+v", r)
	}
	return pid
}

func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func TestStopEndsServer(t *testing.T) {
	sys := newSystem(t)
	pid := sys.Root.Spawn(mcp.Props(stdio(t, "test"), t.TempDir()))
	pidTool := mustTools(t, sys, pid)["test__pid"]
	child := serverPID(t, pidTool)
	if g := testkit.ProcessGroup(t, child); g != child {
		t.Errorf("server runs in process group %d, want its own (%d)", g, child)
	}

	if err := sys.Root.StopFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 5*time.Second, "server process gone", func() bool { return gone(child) })

	r := run(t, pidTool, `{}`)
	if !r.IsError || !strings.Contains(r.Output, `mcp server "test"`) {
		t.Errorf("call after stop: %+v", r)
	}
}

type boom struct{}

func TestRestartReconnects(t *testing.T) {
	sys := newSystem(t)
	crash := func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			if _, ok := env.Message.(*boom); ok {
				panic("injected fault")
			}
			next(c, env)
		}
	}
	props := mcp.Props(stdio(t, "test"), t.TempDir()).Clone(actor.WithReceiverMiddleware(crash))
	pid := spawn(t, sys, props)
	pidTool := mustTools(t, sys, pid)["test__pid"]
	first := serverPID(t, pidTool)

	sys.Root.Send(pid, &boom{})
	testkit.Eventually(t, 5*time.Second, "first server process gone", func() bool { return gone(first) })

	if _, ok := mustTools(t, sys, pid)["test__echo"]; !ok {
		t.Fatal("no tools after the restart")
	}
	// The tool handed out before the crash reaches the new connection.
	second := serverPID(t, pidTool)
	if second == first || gone(second) {
		t.Errorf("after restart the pid tool reached %d (first was %d)", second, first)
	}
}

// A stdio server that dies is started again (a new process) and the tools
// handed out before reach the new one.
func TestServerExitRestartsIt(t *testing.T) {
	mcp.SetBackoff(t, 20*time.Millisecond, time.Second, time.Hour)
	sys := newSystem(t)
	pid := spawn(t, sys, mcp.Props(stdio(t, "test"), t.TempDir()))
	byName := mustTools(t, sys, pid)
	first := serverPID(t, byName["test__pid"])
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var second int
	testkit.Eventually(t, 10*time.Second, "a new server process answers", func() bool {
		r := run(t, byName["test__pid"], `{}`)
		p, err := strconv.Atoi(r.Output)
		second = p
		return !r.IsError && err == nil && p != first
	})
	if gone(second) {
		t.Fatalf("the restarted server %d is not running", second)
	}
	if r := run(t, byName["test__echo"], `{"text":"x"}`); r.IsError || r.Output != "echo:x" {
		t.Errorf("call after the restart: %+v", r)
	}
}

// A server that crashes on a call (-crash-at) fails that call with an
// error result, is started again, and answers the next one.
func TestCrashOnCallRestartsIt(t *testing.T) {
	mcp.SetBackoff(t, 20*time.Millisecond, time.Second, time.Hour)
	sys := newSystem(t)
	pid := spawn(t, sys, mcp.Props(stdio(t, "test", "-crash-at", "2"), t.TempDir()))
	echo := mustTools(t, sys, pid)["test__echo"]
	if r := run(t, echo, `{"text":"1"}`); r.Output != "echo:1" {
		t.Fatalf("first call: %+v", r)
	}
	if r := run(t, echo, `{"text":"2"}`); !r.IsError {
		t.Fatalf("the call the server crashed on: %+v", r)
	}
	// Whether or not the actor has noticed yet, this call is not sent to
	// the dead server: it waits for the restart.
	if r := run(t, echo, `{"text":"3"}`); r.IsError || r.Output != "echo:3" {
		t.Fatalf("call after the crash: %+v", r)
	}
}

// hanging is a stdio "server" that writes its pid to a file and never
// answers, so the actor stays connecting.
func hanging(t *testing.T, name string) (mcp.ServerConfig, func() int) {
	pidFile := t.TempDir() + "/pid"
	cfg := mcp.ServerConfig{Name: name, Command: "sh", Args: []string{"-c", `echo $$ > "$0"; exec sleep 60`, pidFile}}
	readPID := func() int {
		var pid int
		testkit.Eventually(t, 5*time.Second, "server wrote its pid", func() bool {
			b, err := os.ReadFile(pidFile)
			if err != nil {
				return false
			}
			pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil
		})
		return pid
	}
	return cfg, readPID
}

func TestStopWhileConnecting(t *testing.T) {
	sys := newSystem(t)
	cfg, readPID := hanging(t, "slow")
	pid := sys.Root.Spawn(mcp.Props(cfg, t.TempDir()))
	child := readPID()
	if err := sys.Root.StopFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 8*time.Second, "server process gone", func() bool { return gone(child) })
}

func TestConnectTimeout(t *testing.T) {
	mcp.SetConnectTimeout(t, 300*time.Millisecond)
	sys := newSystem(t)
	cfg, readPID := hanging(t, "mute")
	pid := spawn(t, sys, mcp.Props(cfg, t.TempDir()))
	child := readPID()
	reply := getTools(t, sys, pid)
	if reply.Err == nil || !strings.Contains(reply.Err.Error(), `mcp server "mute": connect: timed out after 300ms`) {
		t.Fatalf("reply %+v, want a timeout", reply)
	}
	testkit.Eventually(t, 8*time.Second, "server process gone", func() bool { return gone(child) })
}
