package cluster

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
	"google.golang.org/protobuf/proto"
)

// wire is what the remote does to a message: marshal and unmarshal.
func wire[M proto.Message](t *testing.T, m M, into M) M {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
	return into
}

// Every request a session serves crosses a member as it was sent: the
// same message on the other side, field for field.
func TestRequestsCrossUnchanged(t *testing.T) {
	blocks := []event.Block{{Type: "text", Text: "hi"}}
	mode := event.ApprovalYolo
	reqs := []session.Request{
		&session.Create{Created: event.CreatedPayload{Cwd: "/w", Title: "t", Settings: event.Settings{ApprovalMode: &mode}}},
		&session.Append{Events: []event.Draft{{Kind: event.Kind("x.y"), Payload: json.RawMessage(`{"a":1}`)}}},
		&session.Subscribe{From: 3, LiveOnly: true, Weak: true, Target: actor.NewPID("h:1", "t")},
		&session.Unsubscribe{Subscription: actor.NewPID("h:2", "s")},
		&session.GetState{},
		&session.Prompt{MessageID: "m", Content: blocks, Delivery: event.DeliverySteer, Position: "after", After: "m0", Client: "c", Ancillary: true},
		&session.QueueOp{Op: &queue.CancelPrompt{MessageID: "m"}},
		&session.QueueOp{Op: &queue.UpdatePrompt{MessageID: "m", Content: blocks}},
		&session.QueueOp{Op: &queue.AmendPrompt{TargetID: "m", NewID: "n", Content: blocks, ReplaceQueue: true, OnTargetCompleted: "send_anyway", Client: "c"}},
		&session.CancelRun{Reason: "r"},
		&session.Decide{Decide: run.Decide{ToolCallID: "t", Allow: true, Always: true, OptionID: "o", Reason: "r", By: "b"}},
		&session.AbortRetry{},
		&session.ChangeSettings{Settings: event.Settings{ApprovalMode: &mode}},
		&session.RecordBash{Bash: event.BashExecutedPayload{Command: "ls", Output: "a"}},
		&session.Compact{Instructions: "i"},
		&session.ImportHistory{History: event.HistoryImportedPayload{Source: "s", Messages: []event.HistoryMessage{{Role: "user", Content: "x"}}}},
		&session.SetAttention{Source: "s", Reason: "r", Payload: json.RawMessage(`{"p":true}`), Clear: false},
	}
	for _, req := range reqs {
		pb, err := requestToPB("s-1", req)
		if err != nil {
			t.Fatalf("%T: %v", req, err)
		}
		got, err := requestFromPB(wire(t, pb, &clusterpb.Request{}))
		if err != nil {
			t.Fatalf("%T: %v", req, err)
		}
		if !reflect.DeepEqual(got, req) {
			t.Errorf("%T crossed as\n%#v, sent\n%#v", req, got, req)
		}
	}
}

// Every reply crosses as it was answered, its error as one that matches
// the same sentinel.
func TestRepliesCrossUnchanged(t *testing.T) {
	st := session.State{ID: "s-1", LastSeq: 9, Created: true, Title: "t", Cwd: "/w"}
	replies := []any{
		&session.Appended{FirstSeq: 2, LastSeq: 3},
		&session.Subscribed{Subscription: actor.NewPID("h:1", "sub"), ReplayTo: 7},
		&session.StateReply{State: st},
		&session.StateReply{State: session.State{ID: "s-2", MCPServers: json.RawMessage(`[{"name":"x"}]`)}},
		&queue.Enqueued{MessageID: "m", Position: 2, Depth: 3},
		&queue.Result{OK: true, Reason: "ok", MessageID: "m"},
		&session.CancelRunReply{RunID: "r", Queued: 1, Running: true},
		&run.DecideResult{},
		&session.CompactReply{Summary: "s", FirstKeptEntryID: "e", TokensBefore: 10},
		&session.AttentionReply{Flags: []event.AttentionFlag{{Source: "s", Reason: "r", RaisedAt: 5}}, Changed: true},
		&sessions.Killed{},
	}
	for _, r := range replies {
		got, err := replyFromPB(wire(t, replyToPB(r), &clusterpb.Reply{}))
		if err != nil {
			t.Fatalf("%T: %v", r, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("%T crossed as\n%#v, answered\n%#v", r, got, r)
		}
	}
	for _, sentinel := range []error{sessions.ErrNotFound, sessions.ErrExists, sessions.ErrBusy, sessions.ErrNoRun, sessions.ErrNoEngine,
		sessions.ErrFailed, sessions.ErrHasForks, sessions.ErrAttentionLimit, sessions.ErrDiskFull, sessions.ErrStoreWrite} {
		got, err := replyFromPB(wire(t, replyToPB(&session.Appended{Err: sentinel}), &clusterpb.Reply{}))
		if err != nil {
			t.Fatal(err)
		}
		crossed := got.(*session.Appended).Err
		if !errors.Is(crossed, sentinel) || crossed.Error() != sentinel.Error() || sessions.KindOf(crossed) != sessions.KindOf(sentinel) {
			t.Errorf("%v crossed as %v (kind %v)", sentinel, crossed, sessions.KindOf(crossed))
		}
	}
	failed, err := replyFromPB(wire(t, replyToPB(&sessions.RouteFailed{Err: errors.New("no store")}), &clusterpb.Reply{}))
	if err != nil {
		t.Fatal(err)
	}
	if rf, ok := failed.(*sessions.RouteFailed); !ok || rf.Err.Error() != "no store" {
		t.Errorf("RouteFailed crossed as %#v", failed)
	}
}

// A subscription's events cross with every field.
func TestEventsCrossUnchanged(t *testing.T) {
	at := time.Date(2026, 11, 28, 5, 0, 0, 123456789, time.UTC)
	in := &session.Events{SessionID: "s-1", Events: []event.Event{{SessionID: "s-1", Seq: 4, RecordedAt: at, Kind: event.PromptQueued, Payload: json.RawMessage(`{"message_id":"m"}`)}}}
	got := eventsFromPB(wire(t, eventsToPB(in), &clusterpb.Events{}))
	if !reflect.DeepEqual(got, in) {
		t.Errorf("events crossed as\n%#v, sent\n%#v", got, in)
	}
}
