package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectTimeout bounds starting the server, the handshake and listing its
// tools. A variable so tests can shorten it.
var connectTimeout = 30 * time.Second

// closeWait is how long Stopping waits for the connection to close before
// leaving the rest to its goroutine; a well-behaved stdio server exits
// within milliseconds of its stdin closing.
const closeWait = 2 * time.Second

var (
	errClosed         = errors.New("connection closed")
	errNotSent        = errors.New("connection ended before the call was sent")
	errConnectTimeout = errors.New("timed out")
)

// conn is one actor incarnation's connection to its server. The connect
// goroutine and the actor share it: whichever of "connected" and "close"
// comes second closes the client session, so a connection that completes
// after the actor stopped is never leaked.
type conn struct {
	cfg    ServerConfig
	cwd    string
	life   context.Context // cancelled by close: ends connecting and every call in flight (see close)
	cancel context.CancelFunc
	stderr *tail // a stdio server's last words, for error messages

	proc *actor.PID // a stdio server's process actor; used by the actor only

	// dial, when set, replaces the configured transport (tests use the
	// SDK's in-memory one).
	dial func() (sdk.Transport, error)
	// onToolsChanged tells the actor about notifications/tools/list_changed;
	// it runs on the SDK's goroutine, so it only sends a message.
	onToolsChanged func()

	progress progressCalls

	mu      sync.Mutex
	session *sdk.ClientSession
	child   *child // a started stdio server; nil for http and sse
	closed  bool
	dead    bool // the server ended the session; the actor may not know yet
	calls   int  // callTool calls in flight
	// changedGen counts list_changed notifications, listedGen the ones a
	// re-list has answered; listed is closed and replaced at each re-list.
	changedGen, listedGen uint64
	listed                chan struct{}
}

func newConn(cfg ServerConfig, cwd string) *conn {
	life, cancel := context.WithCancel(context.Background())
	return &conn{cfg: cfg, cwd: cwd, life: life, cancel: cancel, stderr: &tail{}, listed: make(chan struct{})}
}

// open connects and lists the server's tools. When it fails nothing it
// started is left running.
func (c *conn) open() ([]*sdk.Tool, error) {
	if err := c.cfg.Validate(); err != nil {
		return nil, err
	}
	// The SSE transport ties its event stream to the context Connect gets,
	// so that context must outlive the connect: the deadline cancels it only
	// while connecting, and close cancels it (through life) later.
	ctx, cancel := context.WithCancelCause(c.life)
	deadline := time.AfterFunc(connectTimeout, func() { cancel(errConnectTimeout) })
	defer deadline.Stop()
	// The client session closes itself when the handshake fails; ending a
	// stdio child then waits for it, so the tail holds its last words.
	t, err := c.transport()
	if err != nil {
		c.endChild()
		return nil, c.fail("connect", err)
	}
	cs, err := c.newClient().Connect(ctx, t, nil)
	if err != nil {
		c.endChild()
		return nil, c.fail("connect", withCause(ctx, err))
	}
	if !c.adopt(cs) {
		_ = cs.Close()
		c.endChild()
		return nil, c.fail("connect", errClosed)
	}
	listed, err := listTools(ctx, cs)
	if err != nil {
		c.close()
		return nil, c.fail("list tools", withCause(ctx, err))
	}
	return listed, nil
}

// withCause names the connect deadline when it is what ended ctx, where
// the SDK's error says only "context canceled".
func withCause(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errConnectTimeout) {
		return fmt.Errorf("%w after %s", errConnectTimeout, connectTimeout)
	}
	return err
}

// adopt records the session unless close came first.
func (c *conn) adopt(cs *sdk.ClientSession) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.session = cs
	return true
}

// setChild records a stdio server's process once it has started, before
// the connect goroutine starts.
func (c *conn) setChild(p *child) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.child = p
}

func (c *conn) getChild() *child {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.child
}

// endChild ends a stdio server's process, if there is one; see child.end.
func (c *conn) endChild() {
	if p := c.getChild(); p != nil {
		p.end()
	}
}

// close ends the connection: calls in flight are cancelled (the SDK's
// Close waits for them), then the session closes, and a stdio child gets
// EOF on its stdin, then SIGTERM and SIGKILL. It is bounded by those grace
// periods, and safe to call more than once.
//
// When the server already ended the session, the SDK has settled or is
// settling the calls in flight itself (a restarted HTTP server's 404 says
// a call was never run, so it may go to the next connection); cancelling
// them would hide that as "connection closed". The last of them cancels
// life instead, each bounded by its caller's context.
func (c *conn) close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	cs, keepCalls := c.session, c.dead && c.calls > 0
	c.mu.Unlock()
	if !keepCalls {
		c.cancel()
	}
	if cs != nil {
		_ = cs.Close() // the child's exit status after we closed it says nothing useful
	}
	c.endChild()
}

// markDead records that the server ended the session (or refused it).
func (c *conn) markDead() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dead = true
}

// isDead reports whether the server ended the session.
func (c *conn) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

func (c *conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// watch blocks until the server ends the connection and reports it with
// lost, unless the actor closed it on purpose.
func (c *conn) watch(lost func(error)) {
	c.mu.Lock()
	cs := c.session
	c.mu.Unlock()
	if cs == nil {
		return
	}
	err := cs.Wait()
	c.markDead()
	if c.isClosed() {
		return
	}
	if err == nil {
		err = errClosed
	}
	lost(c.fail("connection ended", err))
}

// callTool calls the server's tool by its own name; progress, when set,
// gets the call's notifications/progress as cumulative text. It is safe for
// concurrent use; close cancels it. When the server changed its tool list
// during the call, the result waits (briefly) for the re-list, so the
// model's next request offers the new tools.
func (c *conn) callTool(ctx context.Context, name string, args json.RawMessage, progress func(string)) (*sdk.CallToolResult, error) {
	c.mu.Lock()
	cs, closed, dead := c.session, c.closed, c.dead
	if !dead && cs != nil && !closed {
		c.calls++
	}
	c.mu.Unlock()
	if dead {
		return nil, fmt.Errorf("mcp server %q: call %s: %w", c.cfg.Name, name, errNotSent)
	}
	if cs == nil || closed {
		return nil, fmt.Errorf("mcp server %q: call %s: %w", c.cfg.Name, name, errClosed)
	}
	defer c.callDone()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(c.life, stop)()
	params := &sdk.CallToolParams{Name: name}
	if len(args) > 0 {
		params.Arguments = args
	}
	if progress != nil {
		token, done := c.progress.add(progress)
		defer done()
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(ctx, params)
	if notSent(err) {
		c.markDead()
		return nil, fmt.Errorf("mcp server %q: call %s: %w (%v)", c.cfg.Name, name, errNotSent, err)
	}
	if err != nil {
		if c.life.Err() != nil {
			err = errClosed // the actor is stopping: say so, not "context canceled"
		}
		// Not fail: a call's error is the server's answer, and the stderr
		// of a healthy server is only noise here.
		return nil, fmt.Errorf("mcp server %q: call %s: %w", c.cfg.Name, name, err)
	}
	c.waitListed(ctx)
	return res, nil
}

// callDone counts a call out; the last call of a connection closed after
// the server ended it cancels life (see close).
func (c *conn) callDone() {
	c.mu.Lock()
	c.calls--
	last := c.closed && c.calls == 0
	c.mu.Unlock()
	if last {
		c.cancel()
	}
}

// notSent reports a call the SDK refused without the server acting on it,
// so the connection is dead and the call may go to the next one: an HTTP
// server that restarted answered 404 for the old session, or the SDK saw
// the server go (its read side ended) and did not write the call, before
// the watcher could mark the connection dead.
func notSent(err error) bool {
	return errors.Is(err, sdk.ErrSessionMissing) || errors.Is(err, sdk.ErrConnectionClosed)
}

// fail wraps err with the server's name and, when a stdio server wrote to
// stderr, the end of what it wrote: usually the reason it failed.
func (c *conn) fail(op string, err error) error {
	if last := c.stderr.String(); last != "" {
		return fmt.Errorf("mcp server %q: %s: %w (stderr: %s)", c.cfg.Name, op, err, last)
	}
	return fmt.Errorf("mcp server %q: %s: %w", c.cfg.Name, op, err)
}

// listTools follows tools/list pagination to the end. A tool listed twice
// is kept once.
func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if t == nil || seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		out = append(out, t)
	}
	return out, nil
}
