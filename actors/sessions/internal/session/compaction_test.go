package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/compaction"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func smallCompaction(e *session.Engine) {
	e.Compaction = compaction.Settings{KeepRecentTokens: 5, ReserveTokens: 100}
}

func compactionEnded(t *testing.T, r *engineRig) event.CompactionPayload {
	t.Helper()
	var p event.CompactionPayload
	testkit.NoError(t, r.c.WaitKind(t, event.CompactionEnded, 10*time.Second).Decode(&p))
	return p
}

func TestManualCompaction(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("first answer")),
		llmserver.Steps(llmserver.Text("second answer")),
		llmserver.Steps(llmserver.Text("SUMMARY: two questions answered")),
		llmserver.Steps(llmserver.Text("third answer")),
	}}, smallCompaction)
	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "question one"), 10*time.Second)
	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "question two"), 10*time.Second)

	reply, err := r.rt.Sessions.Compact(context.Background(), r.id, "keep the numbers")
	testkit.NoError(t, err)
	testkit.Equal(t, reply.Summary, "SUMMARY: two questions answered")
	ended := compactionEnded(t, r)
	testkit.Equal(t, ended.Reason, event.CompactionManual)
	testkit.Equal(t, ended.FirstKeptEntryID, reply.FirstKeptEntryID)
	sumReq := r.llm.Requests()[2]
	if last := sumReq.Messages[len(sumReq.Messages)-1].Content; !strings.Contains(last, "keep the numbers") {
		t.Fatalf("instructions not sent: %q", last)
	}

	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "question three"), 10*time.Second)
	next := r.llm.Requests()[3].Messages
	if !strings.HasPrefix(next[0].Content, conversation.SummaryPrefix+"SUMMARY") {
		t.Fatalf("history after compaction starts with %q", next[0].Content)
	}
	if next[len(next)-1].Content != "question three" || len(next) > 4 {
		t.Fatalf("history after compaction: %+v", next)
	}
	// The full history stays in the log.
	var texts int
	testkit.NoError(t, r.rt.Store.Load(context.Background(), r.id, 1, func(e event.Event) error {
		if e.Kind == event.PromptQueued {
			texts++
		}
		return nil
	}))
	testkit.Equal(t, texts, 3)
}

func TestContextOverflowCompactsAndRetries(t *testing.T) {
	overflow := llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Type: "exceed_context_size_error",
		Message: "request (1528 tokens) exceeds the available context size (1024 tokens), try increasing it"}))
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("an answer")),
		overflow,
		llmserver.Steps(llmserver.Text("SUMMARY")),
		llmserver.Steps(llmserver.Text("fits now")),
	}}, smallCompaction)
	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "one"), 10*time.Second)
	end := testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "two"), 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopEndTurn)
	testkit.Equal(t, compactionEnded(t, r).Reason, event.CompactionOverflow)
}

func TestThresholdCompactionBeforeAStep(t *testing.T) {
	big := strings.Repeat("lorem ipsum ", 200) // ~600 tokens by the estimate
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text(big)),
		llmserver.Steps(llmserver.Text("SUMMARY")),
		llmserver.Steps(llmserver.Text("small")),
	}}, func(e *session.Engine) {
		smallCompaction(e)
		resolve := e.Resolve
		e.Resolve = func(ctx context.Context, st session.State) (run.Model, error) {
			m, err := resolve(ctx, st)
			m.ContextWindow = 500 // 400 usable after the reserve
			return m, err
		}
	})
	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "talk a lot"), 10*time.Second)
	end := testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "and now?"), 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopEndTurn)
	testkit.Equal(t, compactionEnded(t, r).Reason, event.CompactionThreshold)
}
