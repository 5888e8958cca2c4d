package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/troupehq/troupe/transports/jsonrpc"
)

// ClientConfig is what a Client needs.
type ClientConfig struct {
	Conn Conn
	// Keys are the person's key presses, read a byte at a time (a terminal
	// in non-canonical mode, or any reader); nil reads none. A reader with
	// SetReadDeadline is stopped by Close; another ends on its own EOF.
	Keys io.Reader
	Out  io.Writer
	// Interrupts are SIGINTs (a terminal in raw mode sends Ctrl-C as a
	// key instead): each counts as a Ctrl-C.
	Interrupts <-chan os.Signal
	Options    Options
	// Name and Version are sent as clientInfo.
	Name, Version string
	// AskElsewhere, with no Keys, is the note a permission request gets
	// instead of a prompt: the request stays open for a client that can
	// answer it.
	AskElsewhere string
	// Policy, when set, answers the requests it names, bounds the wait of
	// the others and, unattended, denies what nobody can answer.
	Policy *Policy
}

// Client is one person's view of sessions over one ACP connection: it
// renders what arrives, answers permission requests with the keys
// pressed, and turns Ctrl-C into a cancel (once) or a detach (twice).
type Client struct {
	cfg  ClientConfig
	conn Conn
	r    *Renderer
	now  func() time.Time

	frames  chan jsonrpc.Message
	readErr error
	keys    chan byte
	stop    chan struct{}
	wg      sync.WaitGroup
	keyWait bool
	closed  sync.Once

	next      int
	results   map[string]jsonrpc.Message
	sessionID string
	readonly  bool
	lastInt   time.Time
	detached  bool
	expires   map[string]expiring // by tool call id: the requests a Policy's Timeout bounds
}

// doubleInterrupt is how soon a second Ctrl-C detaches rather than
// cancelling again.
const doubleInterrupt = time.Second

// NewClient starts reading the connection and the keys.
func NewClient(cfg ClientConfig) *Client {
	c := &Client{cfg: cfg, conn: cfg.Conn, r: NewRenderer(cfg.Out, cfg.Options), now: cfg.Options.Now,
		frames: make(chan jsonrpc.Message, 64), stop: make(chan struct{}), results: map[string]jsonrpc.Message{},
		expires: map[string]expiring{}}
	if c.now == nil {
		c.now = time.Now
	}
	c.wg.Add(1)
	go c.readFrames()
	if cfg.Keys != nil {
		c.keys = make(chan byte, 16)
		_, c.keyWait = cfg.Keys.(interface{ SetReadDeadline(time.Time) error })
		if c.keyWait {
			c.wg.Add(1)
		}
		go c.readKeys()
	}
	return c
}

// Renderer is the client's renderer, for notes of the caller's own.
func (c *Client) Renderer() *Renderer { return c.r }

// Close ends the connection and the readers.
func (c *Client) Close() error {
	var err error
	c.closed.Do(func() {
		close(c.stop)
		err = c.conn.Close()
		if d, ok := c.cfg.Keys.(interface{ SetReadDeadline(time.Time) error }); ok {
			_ = d.SetReadDeadline(time.Unix(1, 0))
		}
		c.wg.Wait()
	})
	return err
}

func (c *Client) readFrames() {
	defer c.wg.Done()
	defer close(c.frames)
	for {
		_, b, err := c.conn.ReadMessage()
		if err != nil {
			c.readErr = err
			return
		}
		var f jsonrpc.Message
		if json.Unmarshal(b, &f) != nil {
			continue // not JSON-RPC: nothing to show or answer
		}
		select {
		case c.frames <- f:
		case <-c.stop:
			return
		}
	}
}

func (c *Client) readKeys() {
	if c.keyWait {
		defer c.wg.Done()
	}
	defer close(c.keys)
	var buf [64]byte
	for {
		n, err := c.cfg.Keys.Read(buf[:])
		for _, k := range buf[:n] {
			select {
			case c.keys <- k:
			case <-c.stop:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes one message; what names it in an error.
func (c *Client) send(what string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", what, err)
	}
	if err := c.conn.WriteMessage(textMessage, b); err != nil {
		return fmt.Errorf("send %s: %w", what, err)
	}
	return nil
}

// request sends a request and returns its id.
func (c *Client) request(method string, params any) (string, error) {
	c.next++
	id := strconv.Itoa(c.next)
	return id, c.send(method, jsonrpc.NewRequest(json.RawMessage(id), method, params))
}

// call sends a request and serves the connection until its answer.
func (c *Client) call(ctx context.Context, method string, params any, out any) error {
	id, err := c.request(method, params)
	if err != nil {
		return err
	}
	res, err := c.await(ctx, id)
	if err != nil {
		return err
	}
	if res.Error != nil {
		return res.Error
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res.Result, out); err != nil {
		return fmt.Errorf("%s answer: %w", method, err)
	}
	return nil
}

// errDetached: the person detached while an answer was awaited.
var errDetached = errors.New("detached")

// await serves the connection until the answer to id, or a detach.
func (c *Client) await(ctx context.Context, id string) (jsonrpc.Message, error) {
	for {
		if f, ok := c.results[id]; ok {
			delete(c.results, id)
			return f, nil
		}
		if c.detached {
			return jsonrpc.Message{}, errDetached
		}
		if err := c.step(ctx); err != nil {
			return jsonrpc.Message{}, err
		}
	}
}

// ErrClosed: the daemon ended the connection.
var ErrClosed = errors.New("the daemon closed the connection")

// step handles one thing that happened: a frame, a key, an interrupt, a
// spinner tick.
func (c *Client) step(ctx context.Context) error {
	var tick, expiry <-chan time.Time
	if c.cfg.Options.Live {
		t := time.NewTimer(100 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	if at, ok := c.nextExpiry(); ok {
		t := time.NewTimer(at.Sub(c.now()))
		defer t.Stop()
		expiry = t.C
	}
	select {
	case f, ok := <-c.frames:
		if !ok {
			if c.readErr != nil && !errors.Is(c.readErr, io.EOF) {
				return fmt.Errorf("%w: %v", ErrClosed, c.readErr)
			}
			return ErrClosed
		}
		return c.handle(f)
	case k, ok := <-c.keys:
		if !ok {
			c.keys = nil // stdin ended: the view goes on without keys
			return nil
		}
		return c.key(k)
	case <-c.cfg.Interrupts:
		return c.interrupt()
	case <-tick:
		c.r.Tick()
		return c.r.Err()
	case <-expiry:
		return c.expire()
	case <-ctx.Done():
		return ctx.Err()
	}
}

type sessionOf struct {
	SessionID string `json:"sessionId"`
}

func (c *Client) handle(f jsonrpc.Message) error {
	switch {
	case f.Method == "":
		c.results[string(f.ID)] = f
	case len(f.ID) > 0:
		return c.serve(f)
	case f.Method == "session/update":
		var s sessionOf
		if json.Unmarshal(f.Params, &s) == nil && s.SessionID == c.sessionID {
			c.settled(f.Params)
			c.r.Update(f.Params)
		}
	default:
		var s sessionOf
		if json.Unmarshal(f.Params, &s) == nil && s.SessionID == c.sessionID {
			c.r.Notification(f.Method, f.Params)
		}
	}
	return c.r.Err()
}

// serve answers a request from the daemon: permission requests are the
// person's to answer; nothing else is served by a terminal.
func (c *Client) serve(f jsonrpc.Message) error {
	if f.Method != "session/request_permission" {
		return c.send("answer", jsonrpc.NewErrorAnswer(f.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+f.Method)))
	}
	a, err := ParseAsk(f.ID, f.Params)
	if err != nil {
		return c.send("answer", jsonrpc.NewErrorAnswer(f.ID, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())))
	}
	p := c.cfg.Policy
	if o, why, ok := p.decide(a); ok {
		verb := "allowed"
		if strings.HasPrefix(o.Kind, "reject") {
			verb = "denied"
		}
		c.r.Note(fmt.Sprintf("%s %s (%s)", verb, a.Title, why))
		if err := c.answer(a, o, true); err != nil {
			return err
		}
		return c.r.Err()
	}
	switch {
	case c.cfg.Keys != nil:
		c.r.Ask(a)
	case p != nil && p.Timeout > 0:
		c.r.Note(fmt.Sprintf("%s (denied after %s unanswered)", c.cfg.AskElsewhere, p.Timeout))
	case p != nil && p.Unattended:
		msg := "denied " + a.Title + ": no one to answer here"
		if p.Hint != nil {
			msg += "; " + p.Hint(a)
		}
		c.r.Note(msg)
		o, ok := a.pick("reject")
		if err := c.answer(a, o, ok); err != nil {
			return err
		}
		return c.r.Err()
	case c.cfg.AskElsewhere != "":
		c.r.Note(c.cfg.AskElsewhere)
		return c.r.Err()
	default:
		c.r.Ask(a)
	}
	if p != nil && p.Timeout > 0 {
		c.expires[a.ToolCallID] = expiring{ask: a, at: c.now().Add(p.Timeout)}
	}
	return c.r.Err()
}

// settled forgets the deadline of a request answered elsewhere.
func (c *Client) settled(params json.RawMessage) {
	if len(c.expires) == 0 {
		return
	}
	var u struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
			ToolCallID    string `json:"toolCallId"`
		} `json:"update"`
	}
	if json.Unmarshal(params, &u) == nil && u.Update.SessionUpdate == "permission_resolved" {
		delete(c.expires, u.Update.ToolCallID)
	}
}

type permissionOutcome struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

func (c *Client) key(k byte) error {
	if k == 0x03 { // Ctrl-C in a terminal without ISIG
		return c.interrupt()
	}
	a, o, ok := c.r.Key(k)
	if !ok {
		return c.r.Err()
	}
	delete(c.expires, a.ToolCallID)
	return c.answer(a, o, true)
}

// interrupt is Ctrl-C: the first cancels the running turn, a second
// within doubleInterrupt (or one while nothing runs) detaches.
func (c *Client) interrupt() error {
	now := c.now()
	if c.readonly || !c.r.Running() || (!c.lastInt.IsZero() && now.Sub(c.lastInt) < doubleInterrupt) {
		c.detached = true
		return nil
	}
	c.lastInt = now
	c.r.Withdraw()
	c.r.Note("^C cancelling the turn (Ctrl-C again to leave)")
	return c.send("session/cancel", jsonrpc.NewNotification("session/cancel", sessionOf{SessionID: c.sessionID}))
}
