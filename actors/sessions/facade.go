package sessions

import (
	"cmp"
	"context"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
)

// PromptRequest queues a message in a session.
type PromptRequest struct {
	MessageID string // empty: the session makes one
	Content   []event.Block
	Delivery  string // event.DeliveryPrompt (the default), DeliverySteer or DeliveryFollowUp
	Position  string // head | tail (the default) | after
	After     string // the message it goes after, with Position after
	Client    string // who sent it, recorded in prompt.queued
	// Ancillary marks machine traffic (hydra's _meta ancillary): it
	// neither titles the session nor makes it interactive.
	Ancillary bool
}

// PromptResult answers Prompt once prompt.queued is durable. The run it
// starts arrives as run.started (or prompt.delivered for a steer or
// follow-up that joins the running run).
type PromptResult struct {
	MessageID string
	Position  int // 0: it runs now, or joins the running run
	Depth     int // prompts waiting
}

// CancelResult answers Cancel. The run's end arrives as run.ended.
type CancelResult struct {
	RunID   string // the run cancelled; empty when nothing was running
	Running bool
	Queued  int // prompts waiting; they still run
}

// Decision answers a permission request (tool.permission_requested).
type Decision struct {
	ToolCallID string
	Allow      bool
	Always     bool   // allow the call's category for the rest of the session
	OptionID   string // the option the client chose, recorded as is
	Reason     string
	By         string // who decided, recorded in tool.permission_resolved
}

// CompactResult answers Compact: compaction.ended is durable.
type CompactResult struct {
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
}

// QueueResult answers the queue edits. Reason is in hydra's words: ok,
// not_found, already_running, target_not_found, target_completed,
// no_engine. MessageID names what an amend sent.
type QueueResult struct {
	OK        bool
	Reason    string
	MessageID string
}

// AmendRequest replaces a prompt: a queued one is edited in place; the
// running one is cancelled (its partial answer kept) and the replacement
// runs next.
type AmendRequest struct {
	TargetID          string
	NewID             string // empty: the session makes one
	Content           []event.Block
	ReplaceQueue      bool   // also drop every entry after the target
	OnTargetCompleted string // reject (the default) | send_anyway
	Client            string
}

// Subscribed answers Subscribe: history runs to ReplayTo, live events
// follow. Subscription is what Unsubscribe takes.
type Subscribed struct {
	Subscription *actor.PID
	ReplayTo     int64
}

// Prompt queues a message; it runs when its turn comes, or joins the
// running run (steer, follow-up).
func (c *Client) Prompt(ctx context.Context, id string, req PromptRequest) (PromptResult, error) {
	return ask(ctx, c, id, promptCall(req))
}

// Cancel aborts the running run, keeping its partial output; queued
// prompts still run.
func (c *Client) Cancel(ctx context.Context, id, reason string) (CancelResult, error) {
	return ask(ctx, c, id, cancelCall(reason))
}

// Decide answers a permission request of the running run.
func (c *Client) Decide(ctx context.Context, id string, d Decision) error {
	_, err := ask(ctx, c, id, decideCall(d))
	return err
}

// AbortRetry stops a pending automatic retry; the run ends with the error.
func (c *Client) AbortRetry(ctx context.Context, id string) error {
	_, err := ask(ctx, c, id, abortRetryCall())
	return err
}

// SetSettings records a settings change (session.settings_changed) and
// returns its seq. The running run hears of it: the approval mode at once,
// the model from its next step.
func (c *Client) SetSettings(ctx context.Context, id string, set event.Settings) (int64, error) {
	return ask(ctx, c, id, settingsCall(set))
}

// SetMode changes the approval mode (event.ApprovalDefault, …).
func (c *Client) SetMode(ctx context.Context, id, mode string) (int64, error) {
	return c.SetSettings(ctx, id, event.Settings{ApprovalMode: &mode})
}

// Compact summarises the older conversation now; ErrBusy while a run is
// in progress.
func (c *Client) Compact(ctx context.Context, id, instructions string) (CompactResult, error) {
	return ask(ctx, c, id, compactCall(instructions))
}

// QueueCancel removes a queued (not running) prompt.
func (c *Client) QueueCancel(ctx context.Context, id, messageID string) (QueueResult, error) {
	return ask(ctx, c, id, queueCall(&queue.CancelPrompt{MessageID: messageID}))
}

// QueueUpdate edits a queued prompt's content.
func (c *Client) QueueUpdate(ctx context.Context, id, messageID string, content []event.Block) (QueueResult, error) {
	return ask(ctx, c, id, queueCall(&queue.UpdatePrompt{MessageID: messageID, Content: content}))
}

// QueueAmend replaces a queued or running prompt.
func (c *Client) QueueAmend(ctx context.Context, id string, req AmendRequest) (QueueResult, error) {
	return ask(ctx, c, id, amendCall(req))
}

// ImportHistory adds messages a host brings (history.imported) to the
// conversation and returns the event's seq.
func (c *Client) ImportHistory(ctx context.Context, id string, h event.HistoryImportedPayload) (int64, error) {
	return ask(ctx, c, id, importCall(h))
}

// RecordBash records a user's own shell command (bash.executed) for the
// model's next prompt and returns the event's seq.
func (c *Client) RecordBash(ctx context.Context, id string, b event.BashExecutedPayload) (int64, error) {
	return ask(ctx, c, id, bashCall(b))
}

// ForkRequest starts a session whose conversation is its parent's up to
// a point; the fork's own log starts empty.
type ForkRequest struct {
	Parent string
	Seq    int64  // the parent's last event the fork inherits
	Entry  string // the entry forked from, as the client named it
	// Session is the new session's cwd, settings and origin; its fork
	// breadcrumbs are filled in from the fields above.
	Session event.CreatedPayload
}

// Fork creates the fork under a new id and returns it; it records the
// parent's settings at the fork point under those the request names.
func (c *Client) Fork(ctx context.Context, req ForkRequest) (string, error) {
	created := req.Session
	created.ParentSessionID, created.ForkedFromSeq, created.ForkedFromEntry = req.Parent, req.Seq, req.Entry
	// The settings a request names win over those inherited (a client
	// that carried the parent's gives them all).
	inherited, err := c.inheritedSettings(ctx, req.Parent, req.Seq)
	if err != nil {
		return "", err
	}
	created.Settings = inherited.Merge(created.Settings)
	// A fork on an external agent opens an upstream session of its own
	// (told the inherited conversation in a takeover brief): loading the
	// parent's would write into it.
	created.Settings.UpstreamSessionID = nil
	if cmp.Or(lo.FromPtr(created.Settings.Agent), session.BuiltinAgent) != cmp.Or(lo.FromPtr(inherited.Agent), session.BuiltinAgent) {
		created.Settings = event.ForgetAgentModels(created.Settings) // the source agent's models are not the fork's
	}
	// A fork is not interactive until a person prompts it, as Hydra's
	// forks are: one only looked at (a TUI's /btw side question, whose
	// prompts are ancillary) stays out of default lists.
	created.Interactive = new(false)
	id := NewID()
	if err := c.Create(ctx, id, created); err != nil {
		return "", err
	}
	return id, nil
}

func promptCall(req PromptRequest) call[PromptResult] {
	msg := &session.Prompt{MessageID: req.MessageID, Content: req.Content, Delivery: req.Delivery,
		Position: req.Position, After: req.After, Client: req.Client, Ancillary: req.Ancillary}
	return call[PromptResult]{msg: msg, read: func(res any) (PromptResult, error) {
		q, err := replyAs[*queue.Enqueued](res, "prompt")
		if err != nil {
			return PromptResult{}, err
		}
		return PromptResult{MessageID: q.MessageID, Position: q.Position, Depth: q.Depth}, q.Err
	}}
}

func cancelCall(reason string) call[CancelResult] {
	return call[CancelResult]{msg: &session.CancelRun{Reason: reason}, read: func(res any) (CancelResult, error) {
		r, err := replyAs[*session.CancelRunReply](res, "cancel")
		if err != nil {
			return CancelResult{}, err
		}
		return CancelResult{RunID: r.RunID, Running: r.Running, Queued: r.Queued}, nil
	}}
}

func decideCall(d Decision) call[struct{}] {
	msg := &session.Decide{Decide: run.Decide{ToolCallID: d.ToolCallID, Allow: d.Allow, Always: d.Always,
		OptionID: d.OptionID, Reason: d.Reason, By: d.By}}
	return call[struct{}]{msg: msg, read: decided("decide")}
}

func abortRetryCall() call[struct{}] {
	return call[struct{}]{msg: &session.AbortRetry{}, read: decided("abort retry")}
}

func decided(what string) func(any) (struct{}, error) {
	return func(res any) (struct{}, error) {
		r, err := replyAs[*run.DecideResult](res, what)
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, r.Err
	}
}

func settingsCall(set event.Settings) call[int64] {
	return appended(&session.ChangeSettings{Settings: set}, "settings change")
}

func importCall(h event.HistoryImportedPayload) call[int64] {
	return appended(&session.ImportHistory{History: h}, "import history")
}

func bashCall(b event.BashExecutedPayload) call[int64] {
	return appended(&session.RecordBash{Bash: b}, "record bash")
}

func compactCall(instructions string) call[CompactResult] {
	return call[CompactResult]{msg: &session.Compact{Instructions: instructions}, read: func(res any) (CompactResult, error) {
		r, err := replyAs[*session.CompactReply](res, "compact")
		if err != nil {
			return CompactResult{}, err
		}
		return CompactResult{Summary: r.Summary, FirstKeptEntryID: r.FirstKeptEntryID, TokensBefore: r.TokensBefore}, r.Err
	}}
}

func queueCall(op any) call[QueueResult] {
	return call[QueueResult]{msg: &session.QueueOp{Op: op}, read: func(res any) (QueueResult, error) {
		r, err := replyAs[*queue.Result](res, "queue edit")
		if err != nil {
			return QueueResult{}, err
		}
		return QueueResult{OK: r.OK, Reason: r.Reason, MessageID: r.MessageID}, r.Err
	}}
}

func amendCall(req AmendRequest) call[QueueResult] {
	return queueCall(&queue.AmendPrompt{TargetID: req.TargetID, NewID: req.NewID, Content: req.Content,
		ReplaceQueue: req.ReplaceQueue, OnTargetCompleted: req.OnTargetCompleted, Client: req.Client})
}

func stateCall() call[State] {
	return call[State]{msg: &session.GetState{}, read: func(res any) (State, error) {
		r, err := replyAs[*session.StateReply](res, "state")
		if err != nil {
			return State{}, err
		}
		return r.State, r.Err
	}}
}

func subscribeCall(from int64, liveOnly bool, target *actor.PID) call[Subscribed] {
	return subscribeMsg(&session.Subscribe{From: from, LiveOnly: liveOnly, Target: target})
}

func subscribeMsg(msg *session.Subscribe) call[Subscribed] {
	return call[Subscribed]{msg: msg, read: func(res any) (Subscribed, error) {
		r, err := replyAs[*session.Subscribed](res, "subscribe")
		if err != nil {
			return Subscribed{}, err
		}
		return Subscribed{Subscription: r.Subscription, ReplayTo: r.ReplayTo}, r.Err
	}}
}
