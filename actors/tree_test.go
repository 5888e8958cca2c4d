package actors_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/agent"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/rpc"
)

// The live tree of a runtime hosting a session in the middle of a tool
// call, a Go reader's stream, an agent run and a stdio transport is the
// tree ARCHITECTURE.md draws, and nothing but the guardian sits at
// protoactor's root.
func TestLiveTreeIsTheDrawnTree(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"command": "sleep 30"})
	p, err := llmserver.NewProvider(llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("b1", "bash", string(args))),
	}}, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(p, event.ToolStyleNative)})
	ctx := context.Background()

	cwd := t.TempDir()
	testkit.NoError(t, rt.Sessions.Create(ctx, "s1", event.CreatedPayload{Cwd: cwd}))
	stream, err := rt.Sessions.Stream(ctx, "s1", 1, false)
	testkit.NoError(t, err)
	defer stream.Close()
	testkit.Prompt(t, rt, "s1", "sleep")

	runs := startAgentRun(t, rt)
	inR, inW := io.Pipe()
	defer inW.Close()
	tr, err := rt.StartTransport(rpc.Props(rpc.Config{In: inR, Out: io.Discard, Sessions: rt.Sessions, Cwd: t.TempDir()}), "rpc")
	testkit.NoError(t, err)
	_ = tr

	doc := testkit.ReadDocTree(t, filepath.Join("..", "ARCHITECTURE.md"))
	want := []string{
		"troupe/store-writer", "troupe/sessions/<session id>/queue$N", "troupe/sessions/<session id>/run$N/call$N",
		"troupe/sessions/<session id>/subscription$N", "troupe/streams/stream$N", "troupe/agent-runs/run$N",
		"troupe/transports/<transport>/writer$N",
	}
	var live []string
	defer func() {
		if t.Failed() {
			t.Logf("live tree:\n%s", strings.Join(live, "\n"))
		}
	}()
	testkit.Eventually(t, 20*time.Second, "the tool call and the agent run, live", func() bool {
		live = rt.LiveTree()
		return placed(doc, live, "troupe/sessions/<session id>/run$N/call$N") && placed(doc, live, "troupe/agent-runs/run$N")
	})
	testkit.CheckTree(t, doc, live, want...)
	for _, id := range live {
		if id != "troupe" && !strings.HasPrefix(id, "troupe/") {
			t.Errorf("%q is spawned at protoactor's root, beside the guardian", id)
		}
	}
	close(runs)
}

func placed(doc *testkit.DocTree, live []string, place string) bool {
	for _, id := range live {
		if doc.Place(id) == place {
			return true
		}
	}
	return false
}

// startAgentRun starts a scripted agent that waits until the test ends,
// under the guardian's agent-runs; closing the channel cancels it.
func startAgentRun(t *testing.T, rt *actors.Runtime) chan struct{} {
	t.Helper()
	srv := llmserver.New(t, llmserver.Script{})
	dir := filepath.Join(t.TempDir(), "pkg")
	testkit.NoError(t, os.MkdirAll(dir, 0o755))
	testkit.NoError(t, os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte("name: waiter\nmode: script\n"), 0o644))
	testkit.NoError(t, os.WriteFile(filepath.Join(dir, "main.js"), []byte(`setTimeout(function () { print("late"); }, 60000);`), 0o644))
	t.Setenv("OPENAI_BASE_URL", srv.URL()+"/v1")
	host := agent.Host{Home: t.TempDir(), Root: rt.System.Root, Runs: rt.Spawner(actors.SpawnerAgentRuns)}
	opts, err := host.Prepare(context.Background(), dir, nil, dir)
	testkit.NoError(t, err)
	stop := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = agent.Run(ctx, host, opts)
	}()
	go func() { <-stop; cancel() }()
	t.Cleanup(func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-done
	})
	return stop
}
