package acp_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/acp"
)

// A read-only attach to a cold session does not start it. When another
// client then starts it with a long reply, the watcher, reading from the
// store and falling behind its outbound limit, still gets every delta
// once, in order.
func TestWebSocketReadonlyColdAttachReadsTheStore(t *testing.T) {
	const deltas = 3000
	logs := &testkit.Buffer{}
	r := newWSRigLogged(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("first")),
		llmserver.Steps(llmserver.Tokens(deltas, strings.Repeat("z", 512))),
	}}, event.ApprovalYolo, func(c *acp.WebSocketConfig) { c.OutboundLimit = 64 }, logs, nil)
	a := r.dial(t, "writer")
	sid, _ := a.NewSession(r.cwd)
	a.WaitAnswerWithin(a.Prompt(sid, "hi"), wait)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	testkit.NoError(t, r.rt.Sessions.Kill(ctx, sid))
	a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/session/closed" })
	testkit.Eventually(t, wait, "the stored status cold", func() bool {
		m, err := r.rt.Sessions.Meta(ctx, sid)
		return err == nil && m.Status == "cold"
	})

	w := r.dial(t, "watcher")
	replayed, _ := w.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full", "_meta": map[string]any{"hydra-acp": map[string]any{"readonly": true}}})
	testkit.Equal(t, acpclient.Chunks(t, replayed), "first")
	live, err := r.rt.Sessions.Live(ctx)
	testkit.NoError(t, err)
	testkit.Equal(t, slices.Contains(live, sid), false)

	pid := a.Prompt(sid, "go on")
	a.UntilWithin(time.Minute, func(f acpclient.Frame) bool { return f.Answers(pid) })
	got := w.UntilWithin(time.Minute, func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	testkit.Equal(t, acpclient.Count(got, "agent_message_chunk"), deltas)
	assertIncreasing(t, append(replayed, got...))
	testkit.Equal(t, strings.Contains(logs.String(), "client behind"), true)
}
