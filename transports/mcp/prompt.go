package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

type promptArgs struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
	Text      string `json:"text" jsonschema:"the message"`
}

// promptResult is session.prompt's structured result.
type promptResult struct {
	SessionID  string `json:"session_id"`
	MessageID  string `json:"message_id"`
	StopReason string `json:"stop_reason"`
	Text       string `json:"text"`
	Error      string `json:"error,omitempty"`
}

// prompt queues the message and follows the session's events until its
// run ends. It subscribes first, live only, so that no event of the run
// can come before the subscription. The reply's text deltas go out as
// notifications/progress (progress: the bytes streamed so far), and the
// answer is the run's last message.
func (s *Server) prompt(ctx context.Context, req *sdk.CallToolRequest, in promptArgs) (*sdk.CallToolResult, any, error) {
	if in.SessionID == "" || in.Text == "" {
		return toolError("session_id and text are required"), nil, nil
	}
	if _, err := s.cfg.Sessions.Meta(ctx, in.SessionID); err != nil {
		return SessionError(in.SessionID, err), nil, nil
	}
	st, err := s.cfg.Sessions.Stream(ctx, in.SessionID, 0, true)
	if err != nil {
		return SessionError(in.SessionID, err), nil, nil
	}
	defer st.Close()
	res, err := s.cfg.Sessions.Prompt(ctx, in.SessionID, sessions.PromptRequest{
		Content: []event.Block{{Type: "text", Text: in.Text}}, Client: "mcp",
	})
	if err != nil {
		return SessionError(in.SessionID, err), nil, nil
	}
	w := &runWatch{id: res.MessageID, out: promptResult{SessionID: in.SessionID, MessageID: res.MessageID}}
	if tok := req.Params.GetProgressToken(); tok != nil {
		w.progress = func(msg string) {
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(w.streamed), Message: msg})
		}
	}
	if fail := s.follow(ctx, st, w, in.SessionID); fail != nil {
		return fail, nil, nil
	}
	out := w.out
	result := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.Text}}, StructuredContent: out}
	if out.StopReason == "error" || out.StopReason == "cancelled" && out.Error != "" {
		result.IsError = true
		result.Content = []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("the run ended with %s: %s", out.StopReason, out.Error)}}
	}
	return result, nil, nil
}

// follow reads st until w's run ends; a failure is the call's answer.
func (s *Server) follow(ctx context.Context, st *sessions.Stream, w *runWatch, id string) *sdk.CallToolResult {
	for !w.done {
		e, err := st.Next(ctx)
		var closed sessions.ErrClosed
		switch {
		case errors.As(err, &closed):
			return toolError("session %s stopped before the run ended: %s", id, closed.Reason)
		case err != nil:
			if s.ctx.Err() == nil {
				// The client cancelled the call (notifications/cancelled):
				// it wants no more of the run either. When the server
				// stops instead, the run is left to the crash policy.
				s.cancelRun(id, w)
			}
			return toolError("waiting for the run of %s: %v", w.id, err)
		}
		w.apply(e)
	}
	return nil
}

// cancelTimeout bounds the cancel of a run whose call was cancelled.
const cancelTimeout = 10 * time.Second

// cancelRun cancels the run w follows, or drops its prompt from the queue
// when it has not started.
func (s *Server) cancelRun(id string, w *runWatch) {
	ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
	defer cancel()
	var err error
	if w.started {
		_, err = s.cfg.Sessions.Cancel(ctx, id, "cancelled by the MCP client")
	} else {
		_, err = s.cfg.Sessions.QueueCancel(ctx, id, w.id)
	}
	if err != nil {
		s.cfg.Log.Warn("cancel a prompt's run", "session", id, "run", w.id, "error", err)
	}
}

// runWatch folds one run's events into session.prompt's answer.
type runWatch struct {
	id       string // the run's id: the prompt's message id
	out      promptResult
	streamed int
	progress func(message string) // nil: the caller asked for none
	started  bool
	done     bool
}

func (w *runWatch) apply(e event.Event) {
	switch e.Kind {
	case event.MessageDelta, event.MessageCompleted, event.RunStarted, event.RunEnded, event.PromptCancelled, event.ToolPermissionRequested:
	default:
		return
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return
	}
	switch v := p.(type) {
	case *event.MessageDeltaPayload:
		if v.RunID == w.id && v.Channel == event.ChannelText && v.Text != "" && w.progress != nil {
			w.streamed += len(v.Text)
			w.progress(v.Text)
		}
	case *event.MessageCompletedPayload:
		if v.RunID == w.id && v.Text != "" {
			w.out.Text = v.Text
		}
	case *event.PermissionRequestedPayload:
		if v.RunID == w.id && w.progress != nil {
			// MCP has no way to ask: a client attached over /acp may answer.
			w.streamed++
			w.progress(fmt.Sprintf("[waiting for approval of %s]", v.Name))
		}
	case *event.PromptChangedPayload:
		if v.MessageID == w.id {
			w.out.StopReason, w.out.Error, w.done = "cancelled", "the prompt was cancelled before it ran", true
		}
	case *event.RunStartedPayload:
		w.started = w.started || v.RunID == w.id
	case *event.RunEndedPayload:
		if v.RunID == w.id {
			w.out.StopReason, w.out.Error, w.done = v.StopReason, v.Error, true
		}
	}
}
