package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func contents(t *testing.T, r *engineRig, req int) string {
	t.Helper()
	var parts []string
	for _, m := range r.llm.Requests()[req].Messages {
		parts = append(parts, string(m.Role)+":"+m.Content)
	}
	return strings.Join(parts, "|")
}

// A fork starts from its parent's conversation up to the fork point.
func TestForkStartsFromTheParentsHistory(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("A1")), llmserver.Steps(llmserver.Text("A2")), llmserver.Steps(llmserver.Text("B1")),
	}}, nil)
	ctx := context.Background()
	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "Q1"), 10*time.Second)
	forkAt, err := r.rt.Store.LastSeq(ctx, r.id)
	testkit.NoError(t, err)
	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "Q2"), 10*time.Second)

	testkit.NoError(t, r.rt.Sessions.Create(ctx, "fork", event.CreatedPayload{Cwd: r.cwd, ParentSessionID: r.id, ForkedFromSeq: forkAt}))
	c := testkit.NewCollector(t, r.rt.System)
	_, err = r.rt.Sessions.Subscribe(ctx, "fork", 1, false, c.PID())
	testkit.NoError(t, err)
	testkit.WaitRunEnded(t, c, testkit.Prompt(t, r.rt, "fork", "Q3"), 10*time.Second)
	testkit.Equal(t, contents(t, r, 2), "user:Q1|assistant:A1|user:Q3")
}

func TestImportedHistoryIsContext(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("ok"))}}, nil)
	_, err := r.rt.Sessions.ImportHistory(context.Background(), r.id, event.HistoryImportedPayload{
		Source: "init_history", Messages: []event.HistoryMessage{{Role: "user", Content: "Previous conversation summary: X"}},
	})
	testkit.NoError(t, err)
	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "go on"), 10*time.Second)
	testkit.Equal(t, contents(t, r, 0), "user:Previous conversation summary: X|user:go on")
}
