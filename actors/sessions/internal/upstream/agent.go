package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	acp "github.com/coder/acp-go-sdk"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/process"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/metrics"
)

// Backoff bounds: a program that keeps crashing is started again after
// minBackoff·2^(n-1), at most maxBackoff, counted from its last exit.
const (
	minBackoff = 250 * time.Millisecond
	maxBackoff = 30 * time.Second
	// stopGrace is how long the program gets after SIGTERM when the
	// session stops, to save its own session before it is killed.
	stopGrace = 2 * time.Second
	// handshakeTimeout bounds initialize and session/new or load: an
	// agent that never answers ends the turn that waits for it.
	handshakeTimeout = 2 * time.Minute
)

// ErrNoPermission answers a decision for a request the agent no longer
// waits on.
var ErrNoPermission = errors.New("no permission request of the agent waits on this tool call")

type phase int

const (
	phaseDown     phase = iota // no program
	phaseWaiting               // backoff before a start
	phaseStarting              // program started, handshake under way
	phaseReady
)

type agent struct {
	cfg  Config
	log  *slog.Logger
	self *actor.PID
	sys  *actor.ActorSystem
	// ctx bounds every request the actor's goroutines make; cancelled
	// when the actor stops, which also ends the program and so the SDK's
	// own goroutines (they end when its stdout closes).
	ctx    context.Context
	cancel context.CancelFunc

	phase      phase
	gen        int // the program's incarnation; older messages are dropped
	proc       *actor.PID
	conn       *conn
	upstreamID string
	fresh      bool // the upstream session was made now, not loaded
	crashes    int
	cost       float64 // the session's cost as the agent last reported it
	mode       string  // a mode change for the agent, sent before the next prompt
	// models is what the agent said of its models as it opened the
	// upstream session, recorded with the next turn (advertise); model
	// the one it is on, as far as troupe knows.
	models    *event.AgentModels
	advertise bool
	model     string
	lastExit  time.Time
	timer     *time.Timer

	waiting *Turn // a turn whose program is starting
	turn    *turn
	files   *files
	terms   *terminals
}

// Props builds the agent actor of one session.
func Props(cfg Config) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor { return &agent{cfg: cfg} })
}

func (a *agent) Receive(ctx actor.Context) {
	a.receive(ctx)
	if a.turn != nil {
		a.turn.flush(ctx)
	}
}

func (a *agent) receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		a.log = actorlog.For(ctx, "session", a.cfg.SessionID, "agent", a.cfg.AgentID)
		a.self, a.sys = ctx.Self(), ctx.ActorSystem()
		a.ctx, a.cancel = context.WithCancel(context.Background())
		a.files = &files{dirs: append([]string{a.cfg.Cwd}, a.cfg.Dirs...)}
		a.terms = newTerminals(a.cfg.Cwd, a.files)
		a.cost = a.cfg.Cost
	case *actor.Stopping:
		a.stop()
	case *actor.Stopped, *actor.Restarting:
	case *Turn:
		a.onTurn(ctx, m)
	case *startNow:
		if m.gen == a.gen && a.phase == phaseWaiting {
			a.start(ctx)
		}
	case *process.Started:
		if ctx.Sender().Equal(a.proc) {
			a.onStarted(m)
		}
	case *process.Line:
		a.log.Debug("agent output", "stream", m.Stream.String(), "line", m.Text)
	case *process.Exited:
		if ctx.Sender().Equal(a.proc) {
			a.afterOutput(m)
		}
	case *drained:
		if m.proc.Equal(a.proc) {
			a.onExited(ctx, m.exited)
		}
	case *connected:
		if m.gen == a.gen {
			a.onConnected(ctx, m)
		}
	case *updated:
		if m.gen == a.gen && a.phase == phaseReady && a.turn != nil {
			for _, n := range m.ns {
				a.turn.update(ctx, n.Update)
			}
		}
	case *promptDone:
		if m.gen == a.gen && a.turn != nil && a.turn.token == m.token {
			a.onPromptDone(ctx, m)
		}
	case *commandDone:
		if t := a.turn; t != nil && t.token == m.token {
			a.turn = nil
			t.commandDone(ctx, m)
		}
	case *permissionAsked:
		a.onPermission(ctx, m)
	case *run.Decide:
		ctx.Respond(&run.DecideResult{Err: a.decide(ctx, m)})
	case *run.Cancel:
		a.onCancel(ctx, m.Reason)
	case *run.SetMode:
		a.setMode(m.Mode)
	case *run.Reconfigure, *run.AbortRetry:
		// troupe's model resolution and retries are its engine's; the
		// agent has its own.
	default:
		actorlog.Unhandled(a.log, ctx)
	}
}

func (a *agent) onTurn(ctx actor.Context, m *Turn) {
	if a.turn != nil || a.waiting != nil {
		// The session runs one turn at a time; a second is a bug there.
		a.log.Error("a turn while another runs", "run", m.RunID)
		a.endUnstarted(ctx, m, "the agent is busy with another turn")
		return
	}
	if m.Command != nil {
		a.runCommand(m)
		return
	}
	if a.upstreamID == "" {
		// The session the log names (none for a new or swapped session).
		a.upstreamID = m.UpstreamID
	}
	if a.phase == phaseReady {
		a.begin(ctx, m)
		return
	}
	a.waiting = m
	if a.phase != phaseDown {
		return
	}
	if wait := a.backoff(); wait > 0 {
		a.phase = phaseWaiting
		gen, self, sys := a.gen, a.self, a.sys
		a.timer = time.AfterFunc(wait, func() { sys.Root.Send(self, &startNow{gen: gen}) })
		a.log.Info("agent starts again after a backoff", "wait", wait, "crashes", a.crashes)
		return
	}
	a.start(ctx)
}

// runCommand answers a daemon's command as the turn, in a goroutine: a
// verb may wait on the session (its turn's end), which must not wait on
// this actor.
func (a *agent) runCommand(m *Turn) {
	a.turn = newTurn(a, m)
	run, token, self, sys := m.Command, m.Token, a.self, a.sys
	go func() {
		reply, err := run(a.ctx)
		sys.Root.Send(self, &commandDone{token: token, reply: reply, err: err})
	}()
}

// backoff is what is left of the wait before a program that crashed may
// start again.
func (a *agent) backoff() time.Duration {
	if a.crashes == 0 {
		return 0
	}
	wait := min(minBackoff<<min(a.crashes-1, 10), maxBackoff)
	return wait - time.Since(a.lastExit)
}

// start runs the program the catalogue names now.
func (a *agent) start(ctx actor.Context) {
	l, err := a.cfg.Resolve(a.cfg.AgentID)
	if err != nil {
		a.failWaiting(ctx, fmt.Errorf("agent %s: %w", a.cfg.AgentID, err))
		return
	}
	env := os.Environ()
	for k, v := range l.Env {
		env = append(env, k+"="+v)
	}
	spec := process.Spec{
		Path: l.Command, Args: append(append([]string{}, l.Args...), a.cfg.Args...), Env: env, Dir: a.cfg.Cwd,
		Stdin: true, Output: process.OutputStream, StopGrace: stopGrace,
	}
	a.gen++
	a.phase = phaseStarting
	if a.crashes > 0 {
		metrics.AgentRestarts.Inc()
	}
	a.proc = ctx.SpawnPrefix(process.Props(spec, nil), "process")
}

func (a *agent) onStarted(m *process.Started) {
	a.log.Info("agent started", "pid", m.PID, "command", a.cfg.AgentID)
	gen := a.gen
	c := &client{a: a, gen: gen}
	conn := newConn(c, m.Stdin, m.Stdout, a.log)
	a.conn = conn
	upstream, servers := a.upstreamID, a.mcpServers()
	cwd, dirs := a.cfg.Cwd, a.cfg.Dirs
	go func() {
		ctx, cancel := context.WithTimeout(a.ctx, handshakeTimeout)
		defer cancel()
		res := handshake(ctx, conn, upstream, cwd, dirs, servers)
		res.gen = gen
		a.sys.Root.Send(a.self, res)
	}()
}

// handshake initializes the agent and opens its session: session/load of
// the one it had when it can load, else a new one.
func handshake(ctx context.Context, conn *conn, upstream, cwd string, dirs []string, servers []acp.McpServer) *connected {
	var init acp.InitializeResponse
	err := conn.call(ctx, "initialize", acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{
			Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true,
		},
		ClientInfo: &acp.Implementation{Name: "troupe", Version: "1"},
	}, &init)
	if err != nil {
		return &connected{err: fmt.Errorf("initialize: %w", err)}
	}
	if upstream != "" && init.AgentCapabilities.LoadSession {
		var res sessionAnswer
		err := conn.call(ctx, "session/load", acp.LoadSessionRequest{SessionId: acp.SessionId(upstream), Cwd: cwd, AdditionalDirectories: dirs, McpServers: servers}, &res)
		if err == nil {
			return &connected{upstreamID: upstream, loaded: true, models: res.agentModels()}
		}
		if ctx.Err() != nil {
			return &connected{err: err}
		}
		// A session the agent forgot: a fresh one with a takeover brief.
	}
	var res sessionAnswer
	err = conn.call(ctx, "session/new", acp.NewSessionRequest{Cwd: cwd, AdditionalDirectories: dirs, McpServers: servers}, &res)
	if err != nil {
		return &connected{err: fmt.Errorf("session/new: %w", err)}
	}
	return &connected{upstreamID: res.SessionID, models: res.agentModels()}
}

func (a *agent) mcpServers() []acp.McpServer {
	out := []acp.McpServer{}
	if len(a.cfg.MCPServers) == 0 {
		return out
	}
	if err := json.Unmarshal(a.cfg.MCPServers, &out); err != nil {
		a.log.Warn("mcp servers not forwarded to the agent", "error", err)
		return []acp.McpServer{}
	}
	return out
}

func (a *agent) onConnected(ctx actor.Context, m *connected) {
	if m.err != nil {
		a.log.Warn("agent handshake failed", "error", m.err)
		a.failWaiting(ctx, fmt.Errorf("agent %s: %w", a.cfg.AgentID, m.err))
		a.stopProgram(ctx)
		return
	}
	a.phase = phaseReady
	a.fresh = !m.loaded && m.upstreamID != a.upstreamID
	if !m.loaded {
		a.cost = 0 // a new upstream session's total starts at nothing
	}
	a.upstreamID = m.upstreamID
	a.models, a.advertise, a.model = m.models, m.models != nil, ""
	if m.models != nil {
		a.model = m.models.Current
	}
	if t := a.waiting; t != nil {
		a.waiting = nil
		a.begin(ctx, t)
	}
}

// begin prompts the agent with the turn's prompt (behind a takeover
// brief in a fresh session of a log that has history).
func (a *agent) begin(ctx actor.Context, m *Turn) {
	t := newTurn(a, m)
	a.turn = t
	if a.upstreamID != m.UpstreamID || a.advertise {
		set := event.Settings{UpstreamSessionID: &a.upstreamID}
		if a.advertise {
			set.AgentModels = a.models
		}
		a.advertise = false
		t.emit(ctx, event.SessionSettingsChanged, set)
	}
	// A model a client chose, if the agent is not on it: sent before the
	// prompt, from the goroutine that sends the prompt.
	model, modelConfig := "", ""
	if m.Model != "" && m.Model != a.model {
		model, a.model = m.Model, m.Model
		if a.models != nil {
			modelConfig = a.models.ConfigID
		}
	}
	blocks := promptBlocks(m.Prompt)
	if a.fresh && m.Brief != nil {
		if brief := m.Brief(); brief != "" {
			blocks = append([]acp.ContentBlock{acp.TextBlock(brief)}, blocks...)
		}
	}
	a.fresh = false
	conn, gen, token, sid, mode := a.conn, a.gen, m.Token, acp.SessionId(a.upstreamID), a.mode
	a.mode = ""
	go func() {
		if mode != "" {
			a.sendMode(conn, sid, mode)
		}
		if model != "" {
			a.sendModel(conn, sid, model, modelConfig)
		}
		var resp acp.PromptResponse
		err := conn.call(a.ctx, "session/prompt", acp.PromptRequest{SessionId: sid, Prompt: blocks}, &resp)
		a.sys.Root.Send(a.self, &promptDone{gen: gen, token: token, resp: resp, err: err})
	}()
}

func (a *agent) onPromptDone(ctx actor.Context, m *promptDone) {
	t := a.turn
	if m.err != nil && a.conn != nil && closed(a.conn.Done()) {
		// The program went: its Exited ends the turn, saying how it went.
		a.stopProgram(ctx)
		return
	}
	a.turn = nil
	if m.err != nil {
		if t.cancelled {
			t.end(ctx, event.StopCancelled, "", nil)
			return
		}
		t.end(ctx, event.StopError, "the agent answered the prompt with an error: "+m.err.Error(), nil)
		return
	}
	a.crashes = 0
	t.end(ctx, stopReason(m.resp.StopReason, t.cancelled), "", m.resp.Usage)
}

// afterOutput handles the program's exit once its output is read: the
// process is reaped apart from its stdout's reader, so the exit can
// overtake the last updates it wrote (a chunk just before a crash),
// which must be recorded in the turn the exit ends. The goroutine ends
// with the output, the bound or the actor.
func (a *agent) afterOutput(m *process.Exited) {
	proc, conn, self, sys, actx := a.proc, a.conn, a.self, a.sys, a.ctx
	go func() {
		if conn != nil {
			t := time.NewTimer(drainBound)
			defer t.Stop()
			select {
			case <-conn.Done():
			case <-t.C:
			case <-actx.Done():
				return
			}
		}
		sys.Root.Send(self, &drained{proc: proc, exited: m})
	}()
}

// drainBound bounds the wait for an exited program's output (a child
// it left may hold its stdout open).
const drainBound = 2 * time.Second

func (a *agent) onExited(ctx actor.Context, m *process.Exited) {
	ctx.Stop(a.proc)
	a.proc, a.conn = nil, nil
	a.gen++
	a.phase = phaseDown
	a.crashes++
	a.lastExit = time.Now()
	why := fmt.Sprintf("the agent %s exited (status %d)", a.cfg.AgentID, m.Code)
	if m.Signal != 0 {
		why = fmt.Sprintf("the agent %s was ended by signal %s", a.cfg.AgentID, m.Signal)
	}
	if m.Err != nil {
		why = fmt.Sprintf("the agent %s could not run: %v", a.cfg.AgentID, m.Err)
	}
	a.log.Warn("agent exited", "code", m.Code, "signal", m.Signal, "error", m.Err)
	if t := a.turn; t != nil {
		a.turn = nil
		t.end(ctx, event.StopError, why+" during the turn; the next prompt starts it again", nil)
	}
	a.failWaiting(ctx, errors.New(why))
}

// failWaiting ends the turn that waited for the program with err.
func (a *agent) failWaiting(ctx actor.Context, err error) {
	if a.phase != phaseReady && a.proc == nil {
		a.phase = phaseDown
	}
	t := a.waiting
	if t == nil {
		return
	}
	a.waiting = nil
	a.endUnstarted(ctx, t, err.Error())
}

// endUnstarted ends a turn the agent never saw.
func (a *agent) endUnstarted(ctx actor.Context, m *Turn, why string) {
	newTurn(a, m).end(ctx, event.StopError, why, nil)
}

func (a *agent) onCancel(ctx actor.Context, reason string) {
	if t := a.waiting; t != nil {
		a.waiting = nil
		newTurn(a, t).end(ctx, event.StopCancelled, reason, nil)
		return
	}
	t := a.turn
	if t == nil || t.cancelled {
		return
	}
	t.cancelled = true
	t.cancelPermissions(ctx, reason)
	if a.phase != phaseReady || a.conn == nil {
		return // a daemon command's turn: it ends when the command does
	}
	conn, sid := a.conn, acp.SessionId(a.upstreamID)
	go func() {
		if err := conn.notify("session/cancel", acp.CancelNotification{SessionId: sid}); err != nil {
			a.log.Debug("session/cancel not sent", "error", err)
		}
	}()
}

func (a *agent) onPermission(ctx actor.Context, m *permissionAsked) {
	if m.gen != a.gen || a.turn == nil || a.turn.cancelled {
		m.reply <- acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}
		return
	}
	a.turn.askPermission(ctx, m)
}

func (a *agent) decide(ctx actor.Context, d *run.Decide) error {
	if a.turn == nil {
		return ErrNoPermission
	}
	return a.turn.decide(ctx, d)
}

// setMode forwards a mode change (session/set_mode): at once while a
// turn runs, else before the next prompt, in the goroutine that sends it,
// so the agent has the mode before the prompt. An agent that has no such
// mode says so in the log, and keeps its own.
func (a *agent) setMode(mode string) {
	if a.phase != phaseReady || a.turn == nil {
		a.mode = mode
		return
	}
	conn, sid := a.conn, acp.SessionId(a.upstreamID)
	go func() { a.sendMode(conn, sid, mode) }()
}

func (a *agent) sendMode(conn *conn, sid acp.SessionId, mode string) {
	if err := conn.call(a.ctx, "session/set_mode", acp.SetSessionModeRequest{SessionId: sid, ModeId: acp.SessionModeId(mode)}, nil); err != nil {
		a.log.Info("the agent did not take the mode", "mode", mode, "error", err)
	}
}

// stopProgram ends the program; its Exited follows.
func (a *agent) stopProgram(ctx actor.Context) {
	if a.proc != nil {
		ctx.Send(a.proc, &process.Terminate{Grace: stopGrace})
	}
}

// stop ends what the actor owns: its goroutines' requests, the backoff
// timer, the terminals. The program stops with its process child.
func (a *agent) stop() {
	if a.timer != nil {
		a.timer.Stop()
	}
	if a.turn != nil {
		for _, p := range a.turn.perms {
			p.reply <- acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}
		}
		a.turn.perms = nil
	}
	a.terms.closeAll()
	if a.cancel != nil {
		a.cancel()
	}
}

func stopReason(r acp.StopReason, cancelled bool) string {
	switch string(r) {
	case event.StopEndTurn, event.StopMaxTokens, event.StopMaxTurnRequests, event.StopRefusal, event.StopCancelled:
		return string(r)
	}
	if cancelled {
		return event.StopCancelled
	}
	return event.StopEndTurn
}

// promptBlocks are a prompt's blocks as ACP's.
func promptBlocks(bs []event.Block) []acp.ContentBlock {
	out := make([]acp.ContentBlock, 0, len(bs))
	for _, b := range bs {
		switch b.Type {
		case "image":
			out = append(out, acp.ImageBlock(b.Data, b.MimeType))
		case "resource":
			out = append(out, acp.ResourceLinkBlock(b.URI, b.URI))
		default:
			out = append(out, acp.TextBlock(b.Text))
		}
	}
	return out
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
