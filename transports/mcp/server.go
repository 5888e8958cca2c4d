package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/hugind"
)

// Versions are the protocol versions served, newest first: a client asking
// for another is answered with the first.
var Versions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Config is what the tools serve from.
type Config struct {
	Sessions *sessions.Client
	// Models resolves session.create's model; nil refuses one.
	Models sessions.Models
	// Settings are what a new session records (the command's flags).
	Settings event.Settings
	// DefaultCwd is a new session's directory when the call names none.
	DefaultCwd string
	// Bridge serves the config.*, model.* and server.* tools; nil leaves
	// them out.
	Bridge *hugind.Bridge
	// Transport is recorded as a new session's origin: stdio or http.
	Transport string
	Version   string
	Log       *slog.Logger
}

// Server is troupe's MCP server: one SDK server whose sessions (one per
// stdio process, one per Mcp-Session-Id) share the tools.
type Server struct {
	cfg Config
	sdk *sdk.Server

	// ctx ends the calls under way when the transport closes.
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex // orders closed and calls.Add before Close's Wait
	closed bool
	calls  sync.WaitGroup
}

// New builds the server and its tools.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "troupe", Version: cfg.Version}, &sdk.ServerOptions{
		Logger:                    cfg.Log,
		SupportedProtocolVersions: Versions,
		Instructions:              "troupe hosts coding-agent sessions: create one, prompt it and read its transcript; manage llama-server configs, models and servers.",
	})
	s.sdk.AddReceivingMiddleware(s.bound)
	if cfg.Bridge != nil {
		cfg.Bridge.AddTools(s.sdk, s.emit)
	}
	s.addSessionTools()
	return s
}

// Close ends the calls under way (a prompt waiting for its run stops
// waiting; the run goes on in its session) and waits for their answers.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.calls.Wait()
}

// errStopping answers a call that arrives once Close began.
var errStopping = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "troupe is stopping"}

// bound ends a tool call with the server as well as with its own ctx,
// and counts it for Close.
func (s *Server) bound(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "logging/setLevel" {
			if err := checkLevel(req); err != nil {
				return nil, err
			}
		}
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errStopping
		}
		s.calls.Add(1)
		s.mu.Unlock()
		defer s.calls.Done()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.ctx, cancel)()
		return next(ctx, method, req)
	}
}

// emit sends a bridge method's events the MCP way: progress as
// notifications/progress when the call asked for it (counting the events,
// so that it grows across files), the others as log messages
// (notifications/message, logger hugind.<event>) at info level.
func (s *Server) emit(ctx context.Context, req *sdk.CallToolRequest) func(string, any) {
	tok := req.Params.GetProgressToken()
	n := 0
	return func(ev string, data any) {
		if ev != "progress" {
			_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Logger: "hugind." + ev, Data: data})
			return
		}
		if tok == nil {
			return
		}
		msg, err := json.Marshal(data)
		if err != nil {
			return
		}
		n++
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n), Message: string(msg)})
	}
}

// levels are the log levels of logging/setLevel (RFC 5424's).
var levels = []sdk.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// checkLevel refuses a level the spec does not name with invalid params,
// where the SDK would take any string.
func checkLevel(req sdk.Request) error {
	p, ok := req.GetParams().(*sdk.SetLoggingLevelParams)
	if !ok || p == nil || slices.Contains(levels, p.Level) {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid log level %q: one of %v", p.Level, levels)}
}
