package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/spawner"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// These run the actor in process, under -race, against the scripted LLM
// server over HTTP; the binary's transcripts cover the same end to end.

func setupRun(t *testing.T, srv *llmserver.Server, manifest, main string) (Host, Options, *[]Event) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"agent.yaml": manifest, "main.js": main} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("OPENAI_BASE_URL", srv.URL()+"/v1")
	opts, err := Host{Home: t.TempDir()}.Prepare(context.Background(), dir, []string{"go"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	events := &[]Event{}
	opts.Emit = func(e Event) {
		mu.Lock()
		*events = append(*events, e)
		mu.Unlock()
	}
	system := actor.NewActorSystem()
	t.Cleanup(system.Shutdown)
	runs, err := system.Root.SpawnNamed(spawner.Props("run", nil), "agent-runs")
	if err != nil {
		t.Fatal(err)
	}
	return Host{Root: system.Root, Runs: runs}, opts, events
}

func kinds(events []Event) string {
	var out []string
	for _, e := range events {
		switch d := e.Data.(type) {
		case Status:
			out = append(out, d.Message)
		case Log:
			out = append(out, "log:"+d.Message)
		case SetupEvent:
			out = append(out, d.Type)
		case TurnEvent:
			out = append(out, d.Type)
		case ToolCallEvent:
			out = append(out, d.Type+":"+d.Name)
		case ToolResultEvent:
			out = append(out, d.Type+":"+d.Result)
		case ProgressEvent:
			out = append(out, "progress:"+d.Message)
		case CompleteEvent:
			out = append(out, d.Type)
		}
	}
	return strings.Join(out, " ")
}

func TestRunAgenticInProcess(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.TextToolCall(llmserver.FormatQwen, llmserver.InnerJSON, "twice", map[string]any{"n": 21})),
		llmserver.Steps(llmserver.Text("42")),
	}})
	root, opts, events := setupRun(t, srv, "name: calc\nbackend: {session: fresh}\n", `
register_tool({name: "twice", execute: async function (a) {
  eprint("doubling");
  await new Promise(function (r) { setTimeout(r, 5); });
  return String(JSON.parse(a).n * 2);
}});`)
	res, err := Run(context.Background(), root, opts)
	if err != nil || res.Result != "42" || res.Turns != 2 {
		t.Fatalf("result %+v, %v", res, err)
	}
	for i, r := range srv.ChatRequests() {
		if id := r.Header.Get("X-Session-ID"); id != opts.SessionID || !strings.HasPrefix(id, "agent-calc-") {
			t.Errorf("request %d: X-Session-ID %q, want %q", i+1, id, opts.SessionID)
		}
	}
	want := "agent.run.start agent.setup agent.turn agent.tool_call:twice progress:doubling agent.tool_result:42 agent.turn agent.complete agent.run.finish"
	if got := kinds(*events); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
}

func TestRunCancelAndLimitInterruptALoop(t *testing.T) {
	for _, c := range []struct {
		name  string
		limit time.Duration
		want  string
	}{
		{"cancel", time.Minute, "agent run cancelled"},
		{"limit", 300 * time.Millisecond, "agent run exceeded its time limit of 300ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
				llmserver.Steps(llmserver.TextToolCall(llmserver.FormatQwen, llmserver.InnerJSON, "spin", map[string]any{})),
			}})
			root, opts, events := setupRun(t, srv, "name: spin\n", `register_tool({name: "spin", execute: function () { eprint("spinning"); for (;;) {} }});`)
			opts.Limit = c.limit
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.name == "cancel" {
				inner := opts.Emit
				opts.Emit = func(e Event) {
					inner(e)
					if p, ok := e.Data.(ProgressEvent); ok && p.Message == "spinning" {
						cancel() // the loop is spinning now
					}
				}
			}
			_, err := Run(ctx, root, opts)
			if err == nil || err.Error() != c.want {
				t.Fatalf("err %v, want %s", err, c.want)
			}
			if c.name == "cancel" && !errors.Is(err, ErrCancelled) {
				t.Errorf("%v is not ErrCancelled", err)
			}
			// The limit may strike before the loop spins on a slow machine;
			// cancel comes from the spinning itself.
			if got := kinds(*events); c.name == "cancel" && !strings.HasSuffix(got, "progress:spinning agent.run.finish") {
				t.Errorf("events %s", got)
			}
		})
	}
}

func TestRunScriptInProcess(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{})
	root, opts, events := setupRun(t, srv, "name: s\nmode: script\n", `print("a"); setTimeout(function () { print("b"); }, 5);`)
	res, err := Run(context.Background(), root, opts)
	if err != nil || res.Result != "a\nb\n" {
		t.Fatalf("result %+v, %v", res, err)
	}
	if got := kinds(*events); got != "agent.run.start log:a log:b agent.run.finish" {
		t.Errorf("events %s", got)
	}
}
