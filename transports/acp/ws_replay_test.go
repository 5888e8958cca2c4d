package acp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A long history is replayed in windows, each sent once projected: the
// reply's chunks are joined within a window (so there are several, whose
// text is the whole reply, in order), and a tool call whose updates span
// windows still shows its opening tool_call and its last update alone,
// finished or not.
func TestWebSocketReplayStreamsInWindows(t *testing.T) {
	const deltas = 3000
	r := newWSRig(t, llmserver.Script{}, event.ApprovalYolo, nil)
	w := r.dial(t, "writer")
	sid, _ := w.NewSession(r.cwd)
	draft := func(kind event.Kind, p any) event.Draft {
		d, err := event.NewDraft(kind, p)
		testkit.NoError(t, err)
		return d
	}
	run := "msg-run"
	ds := []event.Draft{
		draft(event.PromptQueued, event.PromptQueuedPayload{MessageID: run, Content: []event.Block{{Type: "text", Text: "go"}}, Delivery: event.DeliveryPrompt}),
		draft(event.RunStarted, event.RunStartedPayload{RunID: run}),
		draft(event.StepStarted, event.StepStartedPayload{RunID: run, Step: 1, MessageID: "msg-a"}),
	}
	var want strings.Builder
	for i := range deltas {
		s := string(rune('a' + i%26))
		want.WriteString(s)
		ds = append(ds, draft(event.MessageDelta, event.MessageDeltaPayload{RunID: run, MessageID: "msg-a", Channel: event.ChannelText, Text: s}))
	}
	ds = append(ds,
		draft(event.MessageCompleted, event.MessageCompletedPayload{RunID: run, MessageID: "msg-a", Text: want.String()}),
		draft(event.ToolStarted, event.ToolStartedPayload{RunID: run, ToolCallID: "c1", Name: "bash", Category: "exec", Arguments: `{"command":"seq"}`, Origin: "native", MessageID: "msg-a"}),
		draft(event.ToolStarted, event.ToolStartedPayload{RunID: run, ToolCallID: "c2", Name: "bash", Category: "exec", Arguments: `{"command":"yes"}`, Origin: "native", MessageID: "msg-a"}))
	for i := range 1500 {
		ds = append(ds,
			draft(event.ToolProgress, event.ToolProgressPayload{RunID: run, ToolCallID: "c1", Output: strings.Repeat("1", i+1)}),
			draft(event.ToolProgress, event.ToolProgressPayload{RunID: run, ToolCallID: "c2", Output: strings.Repeat("y", i+1)}))
	}
	ds = append(ds, draft(event.ToolCompleted, event.ToolCompletedPayload{RunID: run, ToolCallID: "c1", Name: "bash", Status: "success", Output: "done"}))
	_, _, err := r.rt.Sessions.Append(context.Background(), sid, ds...)
	testkit.NoError(t, err)

	// A window is what one batch of the subscription brought, and a viewer
	// that lags (a loaded machine) is brought more at once: every replay
	// must be whole and in order, and windows must show in one of a few.
	var replayed []acpclient.Frame
	for try := 1; ; try++ {
		v := r.dial(t, "viewer")
		var res acpclient.Attached
		replayed, res = v.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
		testkit.Equal(t, res.Replayed, len(replayed))
		testkit.Equal(t, acpclient.Chunks(t, replayed), want.String())
		if acpclient.Count(replayed, "agent_message_chunk") > 1 {
			break
		}
		if try == 5 {
			t.Fatalf("%d replays each came in one window", try)
		}
	}
	assertNonDecreasing(t, replayed)
	calls := map[string][]string{}
	for _, f := range replayed {
		var u struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				ToolCallID    string `json:"toolCallId"`
			} `json:"update"`
		}
		if f.IsUpdate("tool_call") || f.IsUpdate("tool_call_update") {
			testkit.NoError(t, json.Unmarshal(f.Params, &u))
			calls[u.Update.ToolCallID] = append(calls[u.Update.ToolCallID], u.Update.SessionUpdate)
		}
	}
	testkit.Equal(t, strings.Join(calls["c1"], ","), "tool_call,tool_call_update")
	testkit.Equal(t, strings.Join(calls["c2"], ","), "tool_call,tool_call_update")
	last := func(id string) string {
		for i := len(replayed) - 1; i >= 0; i-- {
			if f := replayed[i]; f.IsUpdate("tool_call_update") && strings.Contains(f.Raw, `"toolCallId":"`+id+`"`) {
				return f.Raw
			}
		}
		return ""
	}
	testkit.Equal(t, strings.Contains(last("c1"), `"status":"completed"`), true)
	testkit.Equal(t, strings.Contains(last("c2"), `"status":"in_progress"`), true)
	testkit.Equal(t, strings.Contains(last("c2"), `"text":"`+strings.Repeat("y", 1500)+`"`), true)
}
