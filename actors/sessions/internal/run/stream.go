package run

import (
	"context"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/backoff"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/metrics"
	"github.com/troupehq/troupe/runtime/tooltext"
)

const finalAnswerRequest = tooltext.FinalAnswerRequest

// request builds the LLM request for the current step.
func (t *run) request() llm.Request {
	msgs := t.conv.Messages()
	system := t.cfg.SystemPrompt
	var defs []llm.ToolDef
	if !t.finalRequested && len(t.tools) > 0 {
		if t.cfg.ToolStyle == event.ToolStyleText {
			tts := make([]tooltext.Tool, len(t.tools))
			for i, tl := range t.tools {
				tts[i] = tooltext.Tool{Name: tl.Name(), Description: tl.Description(), Parameters: tl.Parameters()}
			}
			system = tooltext.SystemPrompt(system, "", tts)
		} else {
			for _, tl := range t.tools {
				defs = append(defs, llm.ToolDef{Name: tl.Name(), Description: tl.Description(), Parameters: tl.Parameters()})
			}
		}
	}
	if system != "" {
		msgs = append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, msgs...)
	}
	return llm.Request{
		Model: t.cfg.Model, Messages: msgs, Tools: defs, MaxTokens: t.cfg.MaxTokens,
		Thinking: t.cfg.Thinking, Stream: true, SessionID: t.cfg.SessionID,
	}
}

// startStream runs the provider call in a goroutine owned by the run
// (cancelStream ends it; it always ends by sending streamDone). Deltas go
// straight to the session: nothing else is emitted while a stream runs, so
// the order holds, and the run's mailbox stays out of the hot path.
func (t *run) startStream(ctx actor.Context) {
	t.phase = phaseStreaming
	sctx, cancel := context.WithCancel(context.Background())
	t.cancelStream = cancel
	t.refreshTools()
	req := t.request()
	s := &streamer{
		root: ctx.ActorSystem().Root, session: t.cfg.Session,
		runID: t.cfg.RunID, token: t.cfg.Token, msgID: t.msgID, toolIDs: map[int]string{}, toolNames: map[int]string{},
	}
	self, provider, attempt := ctx.Self(), t.cfg.Provider, t.attempt
	go func() {
		s.began = time.Now()
		resp, err := provider.Stream(sctx, req, s.sink)
		s.flush(s.filter.Close())
		s.root.Send(self, &streamDone{attempt: attempt, resp: resp, err: err, parsed: s.parsed})
	}()
}

// streamer turns chunks into message.delta events; it lives on the stream
// goroutine only.
type streamer struct {
	root      *actor.RootContext
	session   *actor.PID
	runID     string
	token     uint64
	msgID     string
	filter    tooltext.Filter
	parsed    tooltext.Result
	index     int
	toolIDs   map[int]string
	toolNames map[int]string
	began     time.Time // the request; zeroed at its first chunk
}

func (s *streamer) sink(c llm.Chunk) error {
	if !s.began.IsZero() {
		metrics.ModelFirstTokenSeconds.Observe(time.Since(s.began).Seconds())
		s.began = time.Time{}
	}
	switch c.Kind {
	case llm.ChunkText:
		d := s.filter.Push(c.Text)
		s.send(event.ChannelThinking, d.Thinking, "", "")
		s.send(event.ChannelText, d.Text, "", "")
	case llm.ChunkThinking:
		s.send(event.ChannelThinking, c.Text, "", "")
	case llm.ChunkToolCall:
		if c.ToolCall.ID != "" {
			s.toolIDs[c.ToolCall.Index] = c.ToolCall.ID
		}
		if c.ToolCall.Name != "" {
			s.toolNames[c.ToolCall.Index] = c.ToolCall.Name
		}
		s.send(event.ChannelToolCallArgs, c.ToolCall.ArgumentsDelta, s.toolIDs[c.ToolCall.Index], s.toolNames[c.ToolCall.Index])
	}
	return nil
}

func (s *streamer) flush(d tooltext.Delta, res tooltext.Result) {
	s.send(event.ChannelThinking, d.Thinking, "", "")
	s.send(event.ChannelText, d.Text, "", "")
	s.parsed = res
}

func (s *streamer) send(channel, text, toolID, toolName string) {
	if text == "" && toolID == "" {
		return
	}
	b := encodeDelta(event.MessageDeltaPayload{
		RunID: s.runID, MessageID: s.msgID, Index: s.index, Channel: channel, Text: text,
		ToolCallID: toolID, ToolName: toolName,
	})
	s.index++
	s.root.Send(s.session, &Emit{RunID: s.runID, Token: s.token, Events: []event.Draft{{Kind: event.MessageDelta, Payload: b}}})
}

func (t *run) onStreamDone(ctx actor.Context, m *streamDone) {
	if t.phase != phaseStreaming || m.attempt != t.attempt {
		return
	}
	t.cancelStream()
	t.cancelStream = nil
	if t.cancelled {
		t.completeMessage(ctx, m.resp, m.parsed, nil)
		t.end(ctx, event.StopCancelled, t.cancelReason)
		return
	}
	if m.err != nil {
		t.streamFailed(ctx, m)
		return
	}
	if t.attempt > 1 {
		t.emit(ctx, event.RetryEnded, event.RetryPayload{RunID: t.cfg.RunID, Attempt: t.attempt, MaxAttempts: t.cfg.Retry.MaxAttempts, Success: true})
	}
	t.finish = m.resp.FinishReason
	calls := t.completeMessage(ctx, m.resp, m.parsed, m.resp.Usage)
	if t.finalRequested {
		t.end(ctx, event.StopMaxTurnRequests, "")
		return
	}
	if len(calls) == 0 {
		t.askQueue(ctx, false)
		return
	}
	t.calls, t.callIdx = calls, 0
	t.prepareCalls(ctx)
	t.runNextCall(ctx)
}

var emptyParse tooltext.Result

func (t *run) streamFailed(ctx actor.Context, m *streamDone) {
	if llm.IsContextOverflow(m.err) && !t.overflowCompacted {
		t.overflowCompacted = true
		if t.startCompaction(ctx, event.CompactionOverflow, "", thenRetryStream) {
			return
		}
	}
	retry := t.cfg.Retry
	if retry.Enabled && llm.IsRetryable(m.err) && t.attempt < retry.MaxAttempts {
		delay := backoff.Policy{Base: retry.BaseDelay}.Delay(t.attempt - 1) // uncapped: MaxAttempts bounds it
		delay = max(delay, llm.RetryAfterOf(m.err))                         // the server's retry-after, when longer
		metrics.ModelRetries.Inc()
		t.emit(ctx, event.RetryStarted, event.RetryPayload{
			RunID: t.cfg.RunID, Attempt: t.attempt, MaxAttempts: retry.MaxAttempts,
			DelayMS: delay.Milliseconds(), Error: m.err.Error(),
		})
		t.phase = phaseRetryWait
		t.attempt++
		self, root, attempt := ctx.Self(), ctx.ActorSystem().Root, t.attempt
		time.AfterFunc(delay, func() { root.Send(self, &retryNow{attempt: attempt}) })
		return
	}
	if t.attempt > 1 {
		t.emit(ctx, event.RetryEnded, event.RetryPayload{RunID: t.cfg.RunID, Attempt: t.attempt, MaxAttempts: retry.MaxAttempts, Error: m.err.Error()})
	}
	t.completeMessage(ctx, m.resp, m.parsed, nil)
	t.errKind, t.errRetryable = event.ErrorKindProvider, llm.IsRetryable(m.err)
	t.end(ctx, event.StopError, llm.WithHint(m.err)) // the hint once, at the end
}

// completeMessage records the step's assistant message (partial when the
// stream was cut) and returns the calls it asked for: native calls first,
// then text blocks, then malformed blocks reported back as failed calls.
func (t *run) completeMessage(ctx actor.Context, resp *llm.Response, parsed tooltext.Result, usage *llm.Usage) []call {
	var msg llm.Message
	var finish llm.FinishReason
	if resp != nil {
		msg, finish = resp.Message, resp.FinishReason
	}
	var calls []call
	done := event.MessageCompletedPayload{RunID: t.cfg.RunID, MessageID: t.msgID, Text: parsed.Text, Thinking: joinNonEmpty(msg.Thinking, parsed.Thinking)}
	if msg.Content != parsed.Text {
		done.Raw = msg.Content
	}
	for _, tc := range msg.ToolCalls {
		done.ToolCalls = append(done.ToolCalls, event.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
		calls = append(calls, call{id: tc.ID, name: tc.Name, args: tc.Arguments, origin: "native"})
	}
	for i, tc := range parsed.Calls {
		calls = append(calls, call{id: event.TextToolCallID(t.msgID, i), name: tc.Name, args: tc.Arguments, origin: "text"})
	}
	for i, be := range parsed.Errors {
		calls = append(calls, call{id: event.MalformedToolCallID(t.msgID, i), name: be.Name, args: "{}", origin: "text", parseErr: be.Error()})
	}
	if c := msg.Continuation; c != nil {
		done.Continuation = &event.Continuation{API: c.Provider, Data: c.Data}
	}
	if done.Text != "" || done.Raw != "" || done.Thinking != "" || len(done.ToolCalls) > 0 || resp != nil {
		t.emit(ctx, event.MessageCompleted, done)
	}
	var u event.Usage
	if usage != nil {
		u = event.Usage{
			Input:  int64(usage.PromptTokens - usage.CachedTokens - usage.CacheWriteTokens),
			Output: int64(usage.CompletionTokens), CacheRead: int64(usage.CachedTokens), CacheWrite: int64(usage.CacheWriteTokens),
		}
		if t.cfg.Cost != nil {
			u.Cost = t.cfg.Cost(u)
		}
	}
	t.usage.Add(u)
	observeUsage(u)
	if usage != nil && usage.PromptTokens > 0 {
		t.lastContext = usage.PromptTokens + usage.CompletionTokens
		t.lastContextLen = t.conv.Len() // the prompt plus this reply
	}
	t.emit(ctx, event.StepEnded, event.StepEndedPayload{RunID: t.cfg.RunID, Step: t.step, MessageID: t.msgID, FinishReason: string(finish), Usage: u})
	return calls
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// refreshTools takes the tools offered from now on: the configured ones
// and ExtraTools as they are at this step's start.
func (t *run) refreshTools() {
	t.tools = t.cfg.Tools
	if t.cfg.ExtraTools != nil {
		t.tools = append(slices.Clip(t.cfg.Tools), t.cfg.ExtraTools()...)
	}
}
