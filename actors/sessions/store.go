package sessions

import (
	"context"
	"fmt"

	"github.com/troupehq/troupe/persistence/event"
)

// Meta reads a session's snapshot; ErrNotFound when it has no log.
func (c *Client) Meta(ctx context.Context, id string) (Meta, error) {
	if c.cluster != nil {
		return c.cluster.Meta(ctx, id)
	}
	return c.store.Session(ctx, id)
}

// List lists sessions, most recently updated first; a cwd keeps only that
// directory's.
func (c *Client) List(ctx context.Context, cwd string) ([]Meta, error) {
	return c.store.Sessions(ctx, cwd)
}

// Count counts the sessions the store holds, live or cold.
func (c *Client) Count(ctx context.Context) (int, error) {
	return c.store.CountSessions(ctx)
}

// Chains returns the transformer chain of every session that has one.
func (c *Client) Chains(ctx context.Context) (map[string][]string, error) {
	return c.store.Chains(ctx)
}

// StorePath is the store's file; clients name sessions by it.
func (c *Client) StorePath() string { return c.store.Path() }

// maxForkDepth stops a corrupt log whose fork breadcrumbs loop.
const maxForkDepth = 64

// Inherited returns the events a fork inherits, in order: its parent's log
// up to the fork point, after the parent's own inheritance. Deltas are
// left out (message.completed holds what they add up to). A session that
// is not a fork inherits nothing.
func (c *Client) Inherited(ctx context.Context, m Meta) ([]event.Event, error) {
	if m.ParentID == "" || m.ForkedFromSeq <= 0 {
		return nil, nil
	}
	return c.ancestors(ctx, m.ParentID, m.ForkedFromSeq, 0, false)
}

// InheritedShown is Inherited with what a view showing the inherited
// updates as the ancestors' clients were shown them needs: the deltas, and
// after each ancestor's part the response chain's decisions on it that
// its log recorded past the fork point (a turn's last updates are decided
// after the turn ended, where a fork starts).
func (c *Client) InheritedShown(ctx context.Context, m Meta) ([]event.Event, error) {
	if m.ParentID == "" || m.ForkedFromSeq <= 0 {
		return nil, nil
	}
	return c.ancestors(ctx, m.ParentID, m.ForkedFromSeq, 0, true)
}

func (c *Client) ancestors(ctx context.Context, id string, upTo int64, depth int, shown bool) ([]event.Event, error) {
	if depth >= maxForkDepth {
		return nil, fmt.Errorf("fork chain of %s is deeper than %d", id, maxForkDepth)
	}
	meta, err := c.store.Session(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("fork parent %s: %w", id, err)
	}
	var out []event.Event
	if meta.ParentID != "" && meta.ForkedFromSeq > 0 {
		if out, err = c.ancestors(ctx, meta.ParentID, meta.ForkedFromSeq, depth+1, shown); err != nil {
			return nil, err
		}
	}
	err = c.store.LoadRange(ctx, id, 1, upTo, func(e event.Event) error {
		if shown || e.Kind != event.MessageDelta {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load fork parent %s: %w", id, err)
	}
	if !shown {
		return out, nil
	}
	err = c.store.LoadKind(ctx, id, event.UpdateTransformed, func(e event.Event) error {
		var p event.UpdateTransformedPayload
		if e.Seq > upTo && e.Decode(&p) == nil && p.Seq <= upTo {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load fork parent %s's transformed updates: %w", id, err)
	}
	return out, nil
}
