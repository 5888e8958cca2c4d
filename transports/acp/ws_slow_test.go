package acp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
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
	sid, _ := fast.newSession(r.cwd)
	slow := r.dial(t, "slow")
	slow.attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})

	pid := fast.prompt(sid, "go on")
	fastFrames := fast.until(time.Minute, func(f frame) bool { return f.answers(pid) })
	testkit.Equal(t, countUpdates(fastFrames, "agent_message_chunk"), deltas)

	slowFrames := slow.until(time.Minute, func(f frame) bool { return f.isUpdate("turn_complete") })
	testkit.Equal(t, countUpdates(slowFrames, "agent_message_chunk"), deltas)
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
	sid, _ := a.newSession(r.cwd)
	stalled := r.dial(t, "stalled")
	stalled.attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	pid := a.prompt(sid, "go on")
	a.until(time.Minute, func(f frame) bool { return f.answers(pid) })
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
	a.waitAnswer(a.call("session/list", map[string]any{}), wait).decode(t, &list)
	testkit.Equal(t, list.Sessions[0].Meta.Hydra.AttachedClients, 1)
	// What it had buffered, then the end of the socket.
	_ = stalled.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		if _, _, err := stalled.ws.ReadMessage(); err != nil {
			break
		}
	}
}
