package sessions

import (
	"context"
	"fmt"

	"github.com/troupehq/troupe/persistence/event"
)

// ForkPoint is where a fork branches: the seq it inherits up to, and the
// message (the run's prompt) it names.
type ForkPoint struct {
	Seq       int64
	MessageID string
}

// ForkPoint reads session id's log for the end of the run forkAt names
// (its prompt, or an assistant message in it), or of the last run when
// forkAt is empty. A session with no finished run forks at its start.
func (c *Client) ForkPoint(ctx context.Context, id, forkAt string) (ForkPoint, error) {
	last := ForkPoint{Seq: 1}
	var found *ForkPoint
	inRun := map[string]string{} // assistant message id -> run id
	err := c.Load(ctx, id, 1, func(e event.Event) error {
		switch e.Kind {
		case event.MessageCompleted:
			var p event.MessageCompletedPayload
			if e.Decode(&p) == nil {
				inRun[p.MessageID] = p.RunID
			}
		case event.RunEnded:
			var p event.RunEndedPayload
			if e.Decode(&p) != nil {
				return nil
			}
			last = ForkPoint{Seq: e.Seq, MessageID: p.RunID}
			if forkAt != "" && found == nil && (p.RunID == forkAt || inRun[forkAt] == p.RunID) {
				found = &ForkPoint{Seq: e.Seq, MessageID: forkAt}
			}
		}
		return nil
	})
	if err != nil {
		return ForkPoint{}, err
	}
	if forkAt == "" {
		return last, nil
	}
	if found == nil {
		return ForkPoint{}, fmt.Errorf("forkAt %q names no finished turn of session %s", forkAt, id)
	}
	return *found, nil
}

// ForkPoint is Client.ForkPoint.
func (a Async) ForkPoint(id, forkAt string, then func(ForkPoint, error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) (ForkPoint, error) { return a.c.ForkPoint(ctx, id, forkAt) }, then)
}
