package rpc_test

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/rpc"
)

// In process, so the race detector sees the connection actor, its
// goroutines and the fold: commands answered while a run streams, tools,
// bash, a fork and the end of input.
func TestServeInProcess(t *testing.T) {
	p, err := llmserver.NewProvider(llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Looking."), llmserver.ToolCall("c1", "bash", `{"command":"echo hi"}`)),
		llmserver.Steps(llmserver.Tokens(200, "x")),
		llmserver.Steps(llmserver.Text("Follow-up answer.")),
		llmserver.Steps(llmserver.Text("Forked answer.")),
	}}, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(p, "native")})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr, err := rt.StartTransport(rpc.Props(rpc.Config{In: inR, Out: outW, Sessions: rt.Sessions, Cwd: t.TempDir()}), "rpc")
	testkit.NoError(t, err)
	done := make(chan int, 1)
	go func() {
		d := <-tr.Done()
		testkit.NoError(t, d.Err)
		done <- d.Code
		outW.Close()
	}()
	lines := make(chan map[string]any, 4096)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				t.Errorf("not JSON: %s", sc.Text())
				continue
			}
			lines <- m
		}
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	until := func(pred func(map[string]any) bool) map[string]any {
		t.Helper()
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatal("output ended")
				}
				if testing.Verbose() {
					b, _ := json.Marshal(m)
					t.Logf("%.200s", b)
				}
				if pred(m) {
					return m
				}
			case <-time.After(30 * time.Second):
				t.Fatal("timed out")
			}
		}
	}
	typ := func(want string) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["type"] == want }
	}
	id := func(want string) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == want }
	}

	send(`{"id":"p1","type":"prompt","message":"go"}`)
	send(`{"id":"s1","type":"get_state"}`)
	send(`{"id":"p2","type":"prompt","message":"later","streamingBehavior":"followUp"}`)
	until(typ("agent_end"))
	send(`{"id":"b","type":"bash","command":"echo local"}`)
	if r := until(id("b")); r["success"] != true {
		t.Fatalf("bash: %v", r)
	}
	send(`{"id":"f","type":"get_fork_messages"}`)
	forks := until(id("f"))["data"].(map[string]any)["messages"].([]any)
	if len(forks) != 2 {
		t.Fatalf("fork messages %v", forks)
	}
	entry := forks[1].(map[string]any)["entryId"].(string)
	send(`{"id":"k","type":"fork","entryId":"` + entry + `"}`)
	if r := until(id("k")); r["success"] != true {
		t.Fatalf("fork: %v", r)
	}
	send(`{"id":"p3","type":"prompt","message":"again"}`)
	send(`{"id":"m","type":"get_messages"}`)
	inW.Close()
	end := until(typ("agent_end"))
	msgs := end["messages"].([]any)
	if last := msgs[len(msgs)-1].(map[string]any); !strings.Contains(last["content"].([]any)[0].(map[string]any)["text"].(string), "Forked answer.") {
		t.Fatalf("last message %v", last)
	}
	for range lines {
	}
	testkit.Equal(t, <-done, 0)
}
