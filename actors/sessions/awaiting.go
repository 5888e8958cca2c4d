package sessions

import (
	"context"

	"github.com/troupehq/troupe/persistence/event"
)

// maxNamed is the most sessions a read names; past it every session is read.
const maxNamed = 500

// awaiting is one session's fold: its attention flags (each
// attention.changed applied in turn), and its permission requests still
// open (by tool call id, their run's id).
type awaiting struct {
	flags []event.AttentionFlag
	open  map[string]string
}

func (a *awaiting) add(e event.Event) {
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return
	}
	switch v := p.(type) {
	case *event.AttentionPayload:
		a.flags = v.Apply(a.flags, 0)
	case *event.PermissionRequestedPayload:
		a.open[v.ToolCallID] = v.RunID
	case *event.PermissionResolvedPayload:
		delete(a.open, v.ToolCallID)
	case *event.RunEndedPayload:
		a.settle(v.RunID)
	case *event.RunInterruptedPayload:
		a.settle(v.RunID)
	}
}

// settle closes the requests of a run that ended: nobody can answer them.
func (a *awaiting) settle(run string) {
	for call, r := range a.open {
		if r == run {
			delete(a.open, call)
		}
	}
}

// AwaitingInput reports the sessions of ids (every session when ids is
// empty) that have an attention flag raised, an open permission request
// among them: what the protocols' awaitingInput says, from the store,
// whoever is attached and whether the session is live or cold.
func (c *Client) AwaitingInput(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	var cur *awaiting
	curID := ""
	done := func() {
		if cur != nil && (len(cur.flags) > 0 || len(cur.open) > 0) {
			out[curID] = true
		}
	}
	named := ids
	if len(named) > maxNamed {
		named = nil // one read of every session beats a query naming thousands
	}
	err := c.LoadAttention(ctx, named, func(e event.Event) error {
		if e.SessionID != curID || cur == nil {
			done()
			cur, curID = &awaiting{open: map[string]string{}}, e.SessionID
		}
		cur.add(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	done()
	return out, nil
}

// AwaitingInput is Client.AwaitingInput, read off the mailbox.
func (a Async) AwaitingInput(ids []string, then func(map[string]bool, error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) (map[string]bool, error) { return a.c.AwaitingInput(ctx, ids) }, then)
}
