package acp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/acp"
)

// A client that reads nothing while a long reply streams falls behind its
// outbound limit: its connection stops taking live events and later
// catches up from the store. It still gets every delta once, in order,
// and the fast client on the same session reads the whole reply without
// waiting for it.
func TestWebSocketSlowReaderCatchesUp(t *testing.T) {
	const deltas = 6000
	logs := &testkit.Buffer{}
	r := newWSRigLogged(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Tokens(deltas, strings.Repeat("x", 1024))),
	}}, event.ApprovalYolo, func(c *acp.WebSocketConfig) { c.OutboundLimit = 64 }, logs, nil)
	fast := r.dial(t, "fast")
	sid, _ := fast.NewSession(r.cwd)
	slow := r.dial(t, "slow")
	slow.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})

	pid := fast.Prompt(sid, "go on")
	fastFrames := fast.UntilWithin(time.Minute, func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, acpclient.Count(fastFrames, "agent_message_chunk"), deltas)

	slowFrames := slow.UntilWithin(time.Minute, func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	testkit.Equal(t, acpclient.Count(slowFrames, "agent_message_chunk"), deltas)
	assertIncreasing(t, slowFrames)
	assertIncreasing(t, fastFrames)
	testkit.Equal(t, strings.Contains(logs.String(), "client behind"), true)
}

// A client that stops reading entirely is closed once a write has waited
// WriteTimeout; the session and the other clients go on. The timeout
// leaves room for a reader starved of CPU on a loaded machine.
func TestWebSocketStalledClientClosed(t *testing.T) {
	logs := &testkit.Buffer{}
	r := newWSRigLogged(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Tokens(6000, strings.Repeat("y", 1024))),
	}}, event.ApprovalYolo, func(c *acp.WebSocketConfig) { c.WriteTimeout = 5 * time.Second }, logs, nil)
	a := r.dial(t, "reader")
	sid, _ := a.NewSession(r.cwd)
	stalled := r.dial(t, "stalled")
	stalled.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	pid := a.Prompt(sid, "go on")
	a.UntilWithin(time.Minute, func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Eventually(t, 30*time.Second, "the stalled client closed", func() bool {
		return strings.Contains(logs.String(), "client gone")
	})
	var list struct {
		Sessions []struct {
			Meta struct {
				Hydra struct {
					AttachedClients int `json:"attachedClients"`
				} `json:"hydra-acp"`
			} `json:"_meta"`
		} `json:"sessions"`
	}
	a.WaitAnswerWithin(a.Call("session/list", map[string]any{}), wait).Decode(t, &list)
	testkit.Equal(t, list.Sessions[0].Meta.Hydra.AttachedClients, 1)
	// What it had buffered, then the end of the socket.
	_ = stalled.WS.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		if _, _, err := stalled.WS.ReadMessage(); err != nil {
			break
		}
	}
}
