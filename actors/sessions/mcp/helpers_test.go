package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/runtime/tools"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// testServer builds troupe-mcptest once per test process.
func testServer(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "troupe-mcptest-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "troupe-mcptest")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/troupehq/troupe/testkit/cmd/troupe-mcptest").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build troupe-mcptest: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// stdio configures the test server under name, passing args to it.
func stdio(t *testing.T, name string, args ...string) mcp.ServerConfig {
	return mcp.ServerConfig{Name: name, Command: testServer(t), Args: args}
}

// newSystem returns an actor system whose logs show only with -v.
func newSystem(t testing.TB) *actor.ActorSystem {
	t.Helper()
	return actor.NewActorSystem(actor.WithLoggerFactory(func(s *actor.ActorSystem) *slog.Logger {
		if testing.Verbose() {
			return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		}
		return slog.New(slog.DiscardHandler)
	}))
}

// spawn starts the actor for cfg and stops it when the test ends.
func spawn(t testing.TB, sys *actor.ActorSystem, props *actor.Props) *actor.PID {
	t.Helper()
	pid := sys.Root.Spawn(props)
	t.Cleanup(func() { _ = sys.Root.StopFuture(pid).Wait() })
	return pid
}

func getTools(t *testing.T, sys *actor.ActorSystem, pid *actor.PID) *mcp.ToolsReply {
	t.Helper()
	res, err := sys.Root.RequestFuture(pid, &mcp.GetTools{}, 10*time.Second).Result()
	if err != nil {
		t.Fatalf("GetTools: %v", err)
	}
	reply, ok := res.(*mcp.ToolsReply)
	if !ok {
		t.Fatalf("GetTools answered %T", res)
	}
	return reply
}

// mustTools returns the tools by name, failing if the reply has an error.
func mustTools(t *testing.T, sys *actor.ActorSystem, pid *actor.PID) map[string]tools.Tool {
	t.Helper()
	reply := getTools(t, sys, pid)
	if reply.Err != nil {
		t.Fatalf("GetTools: %v", reply.Err)
	}
	byName := map[string]tools.Tool{}
	for _, tl := range reply.Tools {
		byName[tl.Name()] = tl
	}
	return byName
}

func names(m map[string]tools.Tool) []string {
	return slices.Sorted(maps.Keys(m))
}

// run calls tl with JSON args and a 10 s deadline.
func run(t *testing.T, tl tools.Tool, args string) tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := tl.Run(ctx, tools.Call{Args: []byte(args)}, nil)
	if err != nil {
		t.Fatalf("%s: %v", tl.Name(), err)
	}
	return res
}

// markers counts the test server's call markers for one tool.
func markers(t *testing.T, dir, tool string) int {
	t.Helper()
	got, err := filepath.Glob(filepath.Join(dir, tool+"-*.call"))
	if err != nil {
		t.Fatal(err)
	}
	return len(got)
}
