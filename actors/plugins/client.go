package plugins

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// requestTimeout bounds one request to a supervisor.
const requestTimeout = 10 * time.Second

// Client reaches one kind's supervisor from outside the actor system (the
// REST API).
type Client struct {
	Kind string
	// Home, when set, is where Register and Delete keep config.yml in
	// step, so a registration outlives the daemon.
	Home string
	root *actor.RootContext
	pid  *actor.PID
}

// NewClient talks to the supervisor pid; a nil pid is given later with
// Bind, before the client is first used.
func NewClient(kind string, root *actor.RootContext, pid *actor.PID) *Client {
	return &Client{Kind: kind, root: root, pid: pid}
}

// Bind names the supervisor, for a client made before it was spawned (the
// daemon's routes exist before its URL, which the programs need, is known).
func (c *Client) Bind(pid *actor.PID) { c.pid = pid }

// PID is the supervisor's.
func (c *Client) PID() *actor.PID { return c.pid }

func (c *Client) ask(ctx context.Context, msg any) (any, error) {
	f := c.root.RequestFuture(c.pid, msg, requestTimeout)
	res, err := f.Result()
	if err != nil {
		return nil, fmt.Errorf("%s supervisor: %w", c.Kind, err)
	}
	return res, ctx.Err()
}

func (c *Client) reply(ctx context.Context, msg any) (Info, error) {
	res, err := c.ask(ctx, msg)
	if err != nil {
		return Info{}, err
	}
	r := res.(*Reply)
	return r.Info, r.Err
}

// List is every registered process, by name.
func (c *Client) List(ctx context.Context) ([]Info, error) {
	res, err := c.ask(ctx, &List{})
	if err != nil {
		return nil, err
	}
	return res.(*Listed).Infos, nil
}

// Get is one process.
func (c *Client) Get(ctx context.Context, name string) (Info, error) {
	return c.reply(ctx, &Get{Name: name})
}

// Register adds a process (ErrInvalid, ErrConflict).
func (c *Client) Register(ctx context.Context, s Spec) (Info, error) {
	in, err := c.reply(ctx, &Register{Spec: s})
	if err == nil && c.Home != "" {
		_ = s.Validate() // the supervisor took it: its defaults, as saved
		err = saveSpec(c.Home, c.Kind, s, false)
	}
	return in, err
}

// Delete stops and forgets a process (ErrNotFound).
func (c *Client) Delete(ctx context.Context, name string) error {
	_, err := c.reply(ctx, &Delete{Name: name})
	if err == nil && c.Home != "" {
		err = saveSpec(c.Home, c.Kind, Spec{Name: name}, true)
	}
	return err
}

// Control starts, stops or restarts a process (ErrNotFound, ErrConflict).
func (c *Client) Control(ctx context.Context, name, op string) (Info, error) {
	return c.reply(ctx, &Control{Name: name, Op: op})
}
