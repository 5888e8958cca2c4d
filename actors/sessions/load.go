package sessions

import (
	"context"

	"github.com/troupehq/troupe/persistence/event"
)

// Load reads session id's log from the store from seq from, in order,
// calling fn for each event. It needs no session actor and no lease, so it
// reads a session another process hosts. fn's error stops the read and is
// returned.
func (c *Client) Load(ctx context.Context, id string, from int64, fn func(event.Event) error) error {
	return c.store.Load(ctx, id, from, fn)
}

// LastSeq is the last committed seq of session id in the store (0: none).
func (c *Client) LastSeq(ctx context.Context, id string) (int64, error) {
	return c.store.LastSeq(ctx, id)
}

// HeldElsewhere returns a *LeaseHeldError naming the process when another
// live troupe process hosts session id, else nil. Such a session can be
// read (Load) but not written from here until its lease lapses.
func (c *Client) HeldElsewhere(ctx context.Context, id string) error {
	h, err := c.store.HeldBy(ctx, id)
	if err != nil {
		return err
	}
	if h != nil {
		return &LeaseHeldError{Holder: *h}
	}
	return nil
}

// LoadKind reads session id's events of one kind from the store, in order
// (see persistence.Store.LoadKind).
func (c *Client) LoadKind(ctx context.Context, id string, kind event.Kind, fn func(event.Event) error) error {
	return c.store.LoadKind(ctx, id, kind, fn)
}

// LoadAttention reads the attention events (persistence.AttentionKinds)
// of the sessions in ids (when ids is empty, of every session that ever
// raised a flag or asked a permission: no other can have one raised), in
// session then seq order: a fold of flags and open requests reads no
// deltas.
func (c *Client) LoadAttention(ctx context.Context, ids []string, fn func(event.Event) error) error {
	return c.store.LoadAttention(ctx, ids, fn)
}
