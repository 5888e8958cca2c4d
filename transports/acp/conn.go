package acp

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/transports"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/jsonrpc"
	"github.com/troupehq/troupe/transports/stdio"
)

// Config is what every connection of a process shares.
type Config struct {
	Sessions *sessions.Client
	// AgentKnown says whether the daemon's agent catalogue names an
	// external agent id a session may run on; nil knows none.
	AgentKnown func(id string) bool
	// Models describes the models sessions may run on; nil offers none.
	Models sessions.Models
	Hub    *Hub
	// Pipeline is the transformers' registry and the sessions' chains,
	// shared by the connections (nil: a private, empty one).
	Pipeline *pipeline.Pipeline
	// Transport is recorded as a new session's origin: stdio | websocket.
	Transport string
	Version   string
	// Settings are a new session's, before session/new's own (the
	// command's flags); Defaults, when set, gives them as they are now
	// (the daemon's, whose default model a reload may change).
	Settings event.Settings
	Defaults func() event.Settings
	// OutboundLimit bounds the frames handed to the writer and not yet
	// written; past it the connection stops taking live events and catches
	// up from the store once the client has read (0: DefaultOutboundLimit).
	OutboundLimit int
	// AttachSnapshotEvery is how many events past a session's last
	// attach snapshot its attachments save the next, at the first quiet
	// point (attachsnap.go); 0 is DefaultAttachSnapshotEvery, <0 never
	// (and none is read: every attach folds from seq 1).
	AttachSnapshotEvery int
	// InjectMCP adds the daemon's agent-facing MCP servers to each new
	// session's mcpServers; nil (stdio) adds none.
	InjectMCP InjectMCP
	// Agents is the agent catalogue hydra-acp/agents/list adds to troupe's
	// own agent; nil lists that one alone.
	Agents *agentcatalog.Catalog
}

// DefaultOutboundLimit is Config.OutboundLimit's default.
const DefaultOutboundLimit = 32768

// Framing is how a connection's messages travel: Write writes one
// message (from the writer actor alone), maybe into a buffer that Flush
// (if set) pushes out once a batch is written; Read is the reader goroutine,
// sending *stdio.Input per message and *stdio.InputEnd at the end; Close
// ends it when the connection stops, telling the client why.
type Framing struct {
	Write func([]byte) error
	Flush func() error
	Read  func(root *actor.RootContext, to *actor.PID)
	Close func(reason string)
}

// flushTimeout bounds the wait for the last messages to be written.
const flushTimeout = 30 * time.Second

// Props builds one connection's actor, to run under the transports
// supervisor. It reports transports.Done when the client is gone (end of
// input, a write failure) or at transports.Terminate.
func Props(cfg Config, f Framing) *actor.Props { return PeerProps(cfg, f, pipeline.Peer{}) }

// PeerProps is Props for the connection of an extension or a transformer
// (peer, from its per-process token); a zero Peer is a client.
func PeerProps(cfg Config, f Framing, peer pipeline.Peer) *actor.Props {
	if cfg.OutboundLimit <= 0 {
		cfg.OutboundLimit = DefaultOutboundLimit
	}
	if cfg.Hub == nil {
		cfg.Hub = NewHub()
	}
	if cfg.Pipeline == nil {
		cfg.Pipeline = pipeline.New()
	}
	return actor.PropsFromProducer(func() actor.Actor {
		return &conn{cfg: cfg, f: f, peer: peer, att: map[string]*attachment{}, outgoing: map[int64]outgoing{},
			chains: map[int64]func(pipeline.Done){}}
	}, actor.WithSupervisor(transports.Escalate))
}

type conn struct {
	cfg    Config
	f      Framing
	writer *actor.PID
	out    *outbox
	// client is from initialize, which a connection need not send: the
	// connection was authenticated when it was served, and Hydra's shim,
	// reconnecting after a daemon restart, attaches and prompts without
	// it (as Hydra's daemon allows). ClientID is per attachment.
	client ClientInfo

	att      map[string]*attachment // by session id
	nextReq  int64
	outgoing map[int64]outgoing // requests sent to the client, by id

	flow     flow
	closing  bool
	finished bool

	self     *actor.PID
	peer     pipeline.Peer                 // set for an extension's or a transformer's connection
	tInited  bool                          // hydra-acp/transformer/initialize done
	chains   map[int64]func(pipeline.Done) // children this connection waits on (chain runs, votes, awaits, emits), by key
	chainKey int64
}

func (c *conn) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.self = ctx.Self()
		if roleOf(c.peer) == roleClient {
			c.cfg.Hub.connected(c.self)
		}
		c.out = &outbox{}
		c.writer = ctx.SpawnPrefix(writerProps(c.f, c.out), "writer")
		transports.Writes(ctx, c.writer)
		go c.f.Read(ctx.ActorSystem().Root, ctx.Self())
	case *stdio.Input:
		c.onFrame(ctx, m.Line)
	case *stdio.InputTooLong:
		c.send(ctx, jsonrpc.NewErrorAnswer(jsonrpc.Null, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, m.Err.Error())))
	case *stdio.InputEnd, *transports.Terminate:
		c.close(ctx)
	case *sessions.Events:
		if a := c.att[m.SessionID]; a != nil {
			a.onEvents(c, ctx, m.Events)
		}
	case *sessions.Closed:
		if a := c.att[m.SessionID]; a != nil {
			a.onClosed(c, ctx, m.Reason, m.Moved)
		}
	case *storeBatch:
		c.onStoreBatch(ctx, m)
	case *overridesLoaded:
		c.onOverrides(ctx, m)
	case *snapLoaded:
		c.onSnapLoaded(ctx, m)
	case *pipeline.GateOpen:
		if a := c.att[m.Session]; a != nil && len(a.gateHeld) > 0 {
			a.onEvents(c, ctx, nil)
		}
	case *Written:
		c.onWritten(ctx, m)
	case *pipeline.Call:
		c.callPeer(ctx, m)
	case *askClients:
		c.askAttached(ctx, m)
	case *permissionWon:
		c.permissionResolved(ctx, m)
	case *pipeline.AskNow:
		if a := c.att[m.Session]; a != nil && a.replay == nil {
			a.reissue(c, ctx)
		}
	case *pipeline.Notify:
		c.notify(ctx, m.Method, m.Params)
	case *commandsChanged:
		c.onCommandsChanged(ctx)
	case *sessionDeleted:
		c.onSessionDeleted(ctx, m)
	case *pipeline.Done:
		if then := c.chains[m.Key]; then != nil {
			delete(c.chains, m.Key)
			then(*m)
		}
	case *dripTick:
		if a := c.att[m.session]; a != nil {
			a.drip(c, ctx)
		}
	case *actor.Stopping:
		c.cfg.Hub.disconnected(c.self)
		c.peerGone(ctx)
		if c.f.Close != nil {
			c.f.Close(c.closeReason())
		}
		for id, a := range c.att {
			a.leave(c)
			delete(c.att, id)
		}
	default:
		actorlog.Unhandled(c.log(ctx), ctx)
	}
}

func (c *conn) log(ctx actor.Context) *slog.Logger { return actorlog.For(ctx, "transport", "acp") }

func (c *conn) async(ctx actor.Context) sessions.Async { return c.cfg.Sessions.Async(ctx) }

// send hands one message to the writer.
func (c *conn) send(_ actor.Context, v any) {
	c.flow.queued++
	c.out.put(outItem{v: v})
}

// sendRaw hands the writer one message already encoded; b is not
// changed afterwards (it may be shared with other connections).
func (c *conn) sendRaw(b []byte) {
	c.flow.queued++
	c.out.put(outItem{raw: b})
}

func (c *conn) reply(ctx actor.Context, id json.RawMessage, v any) {
	c.send(ctx, jsonrpc.NewResult(id, v))
}

func (c *conn) fail(ctx actor.Context, id json.RawMessage, e *jsonrpc.Error) {
	c.send(ctx, jsonrpc.NewErrorAnswer(id, e))
}

func (c *conn) notify(ctx actor.Context, method string, params any) {
	c.send(ctx, jsonrpc.NewNotification(method, params))
}

// ask sends the client a request; its answer comes back to then.
func (c *conn) ask(ctx actor.Context, method string, params any, o outgoing) {
	c.nextReq++
	c.outgoing[c.nextReq] = o
	c.send(ctx, jsonrpc.NewRequest(jsonrpc.IntID(c.nextReq), method, params))
}

func (c *conn) onFrame(ctx actor.Context, frame []byte) {
	m, derr := jsonrpc.Decode(frame)
	if derr != nil {
		c.fail(ctx, derr.ID, derr.Err)
		return
	}
	if m.IsResponse() {
		c.onResponse(ctx, m)
		return
	}
	if c.closing {
		return
	}
	c.dispatch(ctx, m)
}

// onResponse takes the client's answer to a request this side sent.
func (c *conn) onResponse(ctx actor.Context, m jsonrpc.Message) {
	var id int64
	if json.Unmarshal(m.ID, &id) != nil {
		return // not an id this side makes: nothing waits for it
	}
	o, ok := c.outgoing[id]
	if !ok {
		return
	}
	delete(c.outgoing, id)
	o.answered(c, ctx, m)
}

// close ends the conversation: the client is gone or the process stops.
// Prompts it sent that still run are left to the session (another client
// may be watching them); the connection leaves its sessions and reports
// once everything it wrote is out.
func (c *conn) close(ctx actor.Context) {
	if c.closing {
		return
	}
	c.closing = true
	c.peerGone(ctx)
	for id, a := range c.att {
		a.leave(c)
		delete(c.att, id)
	}
	c.finish(ctx, 0)
}

func (c *conn) finish(ctx actor.Context, code int) {
	if c.finished {
		return
	}
	c.finished = true
	f := ctx.RequestFuture(c.writer, &stdio.Flush{}, flushTimeout)
	ctx.ReenterAfter(f, func(res any, err error) {
		if fl, ok := res.(*stdio.Flushed); ok && fl.Err != nil {
			err = fl.Err
		}
		if err != nil {
			c.log(ctx).Debug("output not fully written", "error", err)
		}
		transports.Finish(ctx, transports.Done{Code: code})
	})
}

// closeReason is what the client is told when the connection ends.
func (c *conn) closeReason() string {
	if c.flow.failed {
		return "the client stopped reading: its messages could not be written"
	}
	return "the connection is closing"
}

// newSettings are a new session's settings before its request's own.
func (c Config) newSettings() event.Settings {
	if c.Defaults != nil {
		return c.Defaults()
	}
	return c.Settings
}
