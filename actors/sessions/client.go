package sessions

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/session"
	"github.com/troupehq/troupe/persistence/event"
)

// Client is the Go API to sessions for code outside the actor system
// (commands, transports' goroutines, tests). Every call is a request to the
// registry bounded by ctx's deadline (30 s without one).
type Client struct {
	root     *actor.RootContext
	registry *actor.PID
}

// NewClient talks to the registry at pid.
func NewClient(root *actor.RootContext, registry *actor.PID) *Client {
	return &Client{root: root, registry: registry}
}

// NewID makes a session id that sorts by creation time.
func NewID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli()))
	_, _ = rand.Read(b[8:])
	return "s-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[2:]))
}

func (c *Client) request(ctx context.Context, id string, msg session.Request) (any, error) {
	timeout := 30 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	if timeout <= 0 {
		return nil, context.DeadlineExceeded
	}
	// The future's own timeout bounds the wait, so no goroutine outlives it.
	res, err := c.root.RequestFuture(c.registry, &Route{ID: id, Msg: msg}, timeout).Result()
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	if rf, ok := res.(*RouteFailed); ok {
		return nil, rf.Err
	}
	return res, nil
}

// Create writes a new session's first event.
func (c *Client) Create(ctx context.Context, id string, created event.CreatedPayload) error {
	res, err := c.request(ctx, id, &session.Create{Created: created})
	if err != nil {
		return err
	}
	return res.(*session.Appended).Err
}

// Append commits drafts to session id and returns their seqs once durable.
func (c *Client) Append(ctx context.Context, id string, drafts ...event.Draft) (first, last int64, err error) {
	res, err := c.request(ctx, id, &session.Append{Events: drafts})
	if err != nil {
		return 0, 0, err
	}
	a := res.(*session.Appended)
	return a.FirstSeq, a.LastSeq, a.Err
}

// State returns the folded state of session id.
func (c *Client) State(ctx context.Context, id string) (session.State, error) {
	res, err := c.request(ctx, id, &session.GetState{})
	if err != nil {
		return session.State{}, err
	}
	r := res.(*session.StateReply)
	return r.State, r.Err
}

// Subscribe delivers events from seq from (then live) to target as
// *session.Events. It returns the subscription to pass to Unsubscribe.
func (c *Client) Subscribe(ctx context.Context, id string, from int64, liveOnly bool, target *actor.PID) (*session.Subscribed, error) {
	res, err := c.request(ctx, id, &session.Subscribe{From: from, LiveOnly: liveOnly, Target: target})
	if err != nil {
		return nil, err
	}
	s := res.(*session.Subscribed)
	return s, s.Err
}

// Unsubscribe ends a subscription; it does not wait for the target's Closed.
func (c *Client) Unsubscribe(id string, sub *actor.PID) {
	c.root.Send(c.registry, &Route{ID: id, Msg: &session.Unsubscribe{Subscription: sub}})
}

// Live lists the sessions that have an actor now.
func (c *Client) Live(ctx context.Context) ([]string, error) {
	res, err := c.root.RequestFuture(c.registry, &Live{}, 10*time.Second).Result()
	if err != nil {
		return nil, fmt.Errorf("list live sessions: %w", err)
	}
	return res.(*LiveSessions).IDs, nil
}

// Do sends any session request and returns the session's reply as is.
func (c *Client) Do(ctx context.Context, id string, req session.Request) (any, error) {
	return c.request(ctx, id, req)
}
