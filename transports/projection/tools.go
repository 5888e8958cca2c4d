package projection

import "github.com/troupehq/troupe/persistence/event"

// CallState is where a tool call stands.
type CallState uint8

const (
	// CallProposed: the model asked for it; it has not started.
	CallProposed CallState = iota
	// CallAwaiting: started, waiting for a permission decision.
	CallAwaiting
	// CallRunning: running (allowed, or needing no decision).
	CallRunning
	// CallRefused: a decision denied it or a cancel settled its request;
	// it will not run, and its tool.completed follows.
	CallRefused
	// CallDone: it completed (Result says how).
	CallDone
)

func (s CallState) String() string {
	switch s {
	case CallAwaiting:
		return "awaiting"
	case CallRunning:
		return "running"
	case CallRefused:
		return "refused"
	case CallDone:
		return "done"
	}
	return "proposed"
}

// ToolCall is one tool call of a run.
type ToolCall struct {
	ID        string
	Name      string
	Category  string // info | edit | exec | mcp
	Arguments string // as it ran (tool.started), else as the model wrote it
	Origin    string // native | text
	State     CallState
	// Started: tool.started was seen (State may have moved on since).
	Started bool
	// Permission is the decision asked for, nil if none was.
	Permission *Permission
	// Output is the cumulative output reported so far (tool.progress).
	Output string
	// Result is the completion, nil until tool.completed.
	Result *event.ToolCompletedPayload
}

// Permission is a decision asked of clients about a call.
type Permission struct {
	Options []event.PermissionOption
	// Resolved is set by the decision: Outcome (allowed, denied,
	// cancelled), the option chosen, why, and who or what decided.
	Resolved   bool
	Outcome    string
	OptionID   string
	Reason     string
	ResolvedBy string
}

// Allowed reports whether the decision let the call run.
func (p *Permission) Allowed() bool { return p.Resolved && p.Outcome == "allowed" }

func (v *View) foldCall(ch *Change, kind event.Kind, p any) {
	switch p := p.(type) {
	case *event.ToolStartedPayload:
		c := v.callOf(ch, p.RunID, p.ToolCallID)
		c.Name, c.Category, c.Arguments, c.Origin, c.Started = p.Name, p.Category, p.Arguments, p.Origin, true
		c.State = CallRunning
		if p.AwaitingApproval {
			c.State = CallAwaiting
		}
	case *event.PermissionRequestedPayload:
		c := v.callOf(ch, p.RunID, p.ToolCallID)
		c.Permission = &Permission{Options: p.Options}
		// A call an external agent asks about once it has started (its
		// tool_call came first) waits for the answer all the same.
		c.State = CallAwaiting
		if c.Name == "" {
			c.Name, c.Category, c.Arguments = p.Name, p.Category, p.Arguments
		}
	case *event.PermissionResolvedPayload:
		c := v.callOf(ch, p.RunID, p.ToolCallID)
		if c.Permission == nil {
			c.Permission = &Permission{}
		}
		pm := c.Permission
		pm.Resolved, pm.Outcome, pm.OptionID, pm.Reason, pm.ResolvedBy = true, p.Outcome, p.OptionID, p.Reason, p.ResolvedBy
		c.State = CallRefused
		if pm.Allowed() {
			c.State = CallRunning
		}
	case *event.ToolProgressPayload:
		v.callOf(ch, p.RunID, p.ToolCallID).Output = p.Output
	case *event.ToolCompletedPayload:
		c := v.callOf(ch, p.RunID, p.ToolCallID)
		if c.Name == "" {
			c.Name = p.Name
		}
		c.State, c.Result = CallDone, p
	}
}

// callOf finds (or adds) a call of the event's run and puts both, and the
// run's current step, in the Change.
func (v *View) callOf(ch *Change, runID, id string) *ToolCall {
	v.open(ch, runID)
	r := ch.Run
	if r == nil {
		// A call outside any run: kept in the Change only.
		ch.Call = &ToolCall{ID: id}
		return ch.Call
	}
	ch.Step, ch.Call = r.Step, r.call(id)
	return ch.Call
}
