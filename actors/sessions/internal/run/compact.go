package run

import (
	"context"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/compaction"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/runtime/llm"
)

// Compacted reports a manual compaction to the session, before Finished.
type Compacted struct {
	RunID            string
	Token            uint64
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Err              error
}

type compactionDone struct {
	summary string
	cut     compaction.Cut
	err     error
}

// after says what the turn does once a compaction ends.
type afterCompaction int

const (
	thenStep afterCompaction = iota
	thenRetryStream
	thenFinish
)

// needsCompaction: the context so far (calibrated by the last reported
// usage) leaves less than the reserve of the model's window.
func (t *turn) needsCompaction() bool {
	if !t.cfg.Compaction.Enabled || t.cfg.ContextWindow <= 0 {
		return false
	}
	msgs := t.conv.Messages()
	tokens := compaction.Estimate(msgs)
	if t.lastContext > 0 && t.lastContextLen <= len(msgs) {
		tokens = compaction.EstimateWithUsage(msgs, t.lastContextLen, t.lastContext)
	}
	return compaction.ShouldCompact(tokens, t.cfg.ContextWindow, t.cfg.Compaction)
}

// startCompaction summarises the older part of the conversation off the
// mailbox. It reports false when there is nothing to compact.
func (t *turn) startCompaction(ctx actor.Context, reason, instructions string, then afterCompaction) bool {
	entries := t.conv.Entries()
	previous := ""
	if len(entries) > 0 && strings.HasPrefix(entries[0].ID, "summary-") {
		previous = strings.TrimSuffix(strings.TrimPrefix(entries[0].Message.Content, conversation.SummaryPrefix), conversation.SummarySuffix)
		entries = entries[1:]
	}
	plan := make([]compaction.Entry, len(entries))
	for i, e := range entries {
		plan[i] = compaction.Entry{ID: e.ID, Message: e.Message}
	}
	cut, err := compaction.Plan(plan, t.cfg.Compaction)
	if err != nil {
		return false
	}
	t.emit(ctx, event.CompactionStarted, event.CompactionPayload{Reason: reason, Instructions: instructions, TokensBefore: int64(cut.TokensBefore)})
	t.phase, t.afterCompact, t.compactReason = phaseCompacting, then, reason
	msgs := make([]llm.Message, len(cut.ToSummarise))
	for i, e := range cut.ToSummarise {
		msgs[i] = e.Message
	}
	req := llm.Request{Model: t.cfg.Model, Messages: compaction.SummaryRequest(msgs, previous, instructions), Stream: true, SessionID: t.cfg.SessionID}
	cctx, cancel := context.WithCancel(context.Background())
	t.cancelStream = cancel
	self, root, provider := ctx.Self(), ctx.ActorSystem().Root, t.cfg.Provider
	go func() {
		resp, err := provider.Stream(cctx, req, nil)
		done := &compactionDone{cut: cut, err: err}
		if err == nil {
			done.summary = strings.TrimSpace(resp.Message.Content)
		}
		root.Send(self, done)
	}()
	return true
}

func (t *turn) onCompactionDone(ctx actor.Context, m *compactionDone) {
	if t.phase != phaseCompacting {
		return
	}
	t.cancelStream()
	t.cancelStream = nil
	p := event.CompactionPayload{Reason: t.compactReason, TokensBefore: int64(m.cut.TokensBefore)}
	switch {
	case t.cancelled:
		p.Aborted = true
	case m.err != nil:
		p.Error = m.err.Error()
	case m.summary == "":
		p.Error = "the model returned an empty summary"
	default:
		p.Summary, p.FirstKeptEntryID = m.summary, m.cut.FirstKeptEntryID
		t.lastContext = 0 // the calibration no longer applies
	}
	t.emit(ctx, event.CompactionEnded, p)
	if t.cfg.CompactOnly {
		var err error
		if p.Error != "" {
			err = errString(p.Error)
		}
		ctx.Send(t.cfg.Session, &Compacted{RunID: t.cfg.RunID, Token: t.cfg.Token, Summary: p.Summary, FirstKeptEntryID: p.FirstKeptEntryID, TokensBefore: m.cut.TokensBefore, Err: err})
		t.end(ctx, event.StopEndTurn, "")
		return
	}
	if t.cancelled {
		t.end(ctx, event.StopCancelled, t.cancelReason)
		return
	}
	switch t.afterCompact {
	case thenRetryStream:
		if p.Summary == "" {
			t.completeMessage(ctx, nil, emptyParse, nil)
			t.end(ctx, event.StopError, "context overflow and compaction failed: "+p.Error)
			return
		}
		t.attempt++
		t.startStream(ctx)
	default:
		t.compacted = true
		t.nextStep(ctx, t.pendingInstruction)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
