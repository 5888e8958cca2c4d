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
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// Client is the session facade: the Go API to sessions for everything
// outside the actor tree that drives them (commands, transports, tests).
// Its methods are typed requests to the registry, each bounded by ctx's
// deadline (30 s without one); Async makes the same requests from inside
// an actor. Reads that need no session actor (listing, snapshots, a
// fork's inherited history) go to the store directly.
type Client struct {
	root     *actor.RootContext
	registry *actor.PID
	streams  *actor.PID
	store    *persistence.Store
	spillDir string
	cluster  Cluster // nil: one process (Clustered)
}

// ClientConfig is what a client talks to.
type ClientConfig struct {
	Root     *actor.RootContext
	Registry *actor.PID
	// Streams is the spawner (actors/spawner) a Stream's forwarder
	// starts under, so that it sits in the tree.
	Streams *actor.PID
	// Store answers the reads that need no session actor.
	Store *persistence.Store
	// SpillDir keeps the full output of a RunBash result too long to
	// return whole; empty keeps none.
	SpillDir string
}

// NewClient talks to the registry and the store of cfg.
func NewClient(cfg ClientConfig) *Client {
	return &Client{root: cfg.Root, registry: cfg.Registry, streams: cfg.Streams, store: cfg.Store, spillDir: cfg.SpillDir}
}

// NewID makes a session id that sorts by creation time.
func NewID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli()))
	_, _ = rand.Read(b[8:])
	return "s-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[2:]))
}

// requestTimeout bounds a request whose caller set no deadline.
const requestTimeout = 30 * time.Second

func (c *Client) request(ctx context.Context, id string, msg session.Request) (any, error) {
	timeout := requestTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	if timeout <= 0 {
		return nil, context.DeadlineExceeded
	}
	// The future's own timeout bounds the wait, so no goroutine outlives it.
	res, err := c.root.RequestFuture(c.registry, &Route{ID: id, Msg: msg}, timeout).Result()
	if err != nil {
		return nil, &UnreachableError{Session: id, Err: err}
	}
	if rf, ok := res.(*RouteFailed); ok {
		return nil, &UnreachableError{Session: id, Err: rf.Err}
	}
	return res, nil
}

// Create writes a new session's first event; ErrExists when it has one.
func (c *Client) Create(ctx context.Context, id string, created event.CreatedPayload) error {
	_, err := ask(ctx, c, id, appended(&session.Create{Created: created}, "create"))
	return err
}

// Append commits drafts to session id and returns their seqs once durable.
func (c *Client) Append(ctx context.Context, id string, drafts ...event.Draft) (first, last int64, err error) {
	res, err := c.request(ctx, id, &session.Append{Events: drafts})
	if err != nil {
		return 0, 0, err
	}
	a, err := replyAs[*session.Appended](res, "append")
	if err != nil {
		return 0, 0, err
	}
	return a.FirstSeq, a.LastSeq, a.Err
}

// State returns the folded state of session id.
func (c *Client) State(ctx context.Context, id string) (State, error) {
	return ask(ctx, c, id, stateCall())
}

// Subscribe delivers events from seq from (then live) to the actor target
// as *Events, in order, with no gap and no duplicate; liveOnly skips the
// history. The subscription ends with *Closed.
func (c *Client) Subscribe(ctx context.Context, id string, from int64, liveOnly bool, target *actor.PID) (Subscribed, error) {
	return ask(ctx, c, id, subscribeCall(from, liveOnly, target))
}

// Follow is Subscribe without keeping the session live (from 0: live
// only): the subscription ends with the session's passivation.
func (c *Client) Follow(ctx context.Context, id string, from int64, target *actor.PID) (Subscribed, error) {
	return ask(ctx, c, id, subscribeMsg(&session.Subscribe{From: from, LiveOnly: from <= 0, Weak: true, Target: target}))
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

// Busy is the sessions this process hosts whose run is under way or
// whose queue holds prompts: what a session list calls busy, whoever is
// attached. A session that stops meanwhile is not busy.
func (c *Client) Busy(ctx context.Context) (map[string]bool, error) {
	ids, err := c.Live(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, id := range ids {
		st, err := c.State(ctx, id)
		if err == nil && (st.ActiveRun != "" || st.Queued > 0) {
			out[id] = true
		}
	}
	return out, nil
}

// Running is the sessions some live process hosts: this one (Live) or
// another holding the session's lease (troupe run, another daemon). The
// store's status still says live for a session whose process was killed;
// this does not.
func (c *Client) Running(ctx context.Context) (map[string]bool, error) {
	ids, err := c.Live(ctx)
	if err != nil {
		return nil, err
	}
	set, err := c.store.HeldElsewhere(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		set[id] = true
	}
	return set, nil
}
