package mcp

import (
	"cmp"
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/workdir"
	"github.com/troupehq/troupe/transports/rest"
)

type listArgs struct {
	Cwd string `json:"cwd,omitempty" jsonschema:"keep only the sessions of this directory"`
}

type sessionEntry struct {
	SessionID string `json:"session_id"`
	Title     string `json:"title,omitempty"`
	Cwd       string `json:"cwd"`
	Status    string `json:"status"`
	Model     string `json:"model,omitempty"`
	// LastSeq grows with every event: a client sees what changed. The
	// list is in the order of the last update, newest first.
	LastSeq int64 `json:"last_seq"`
}

type createArgs struct {
	Cwd          string `json:"cwd,omitempty" jsonschema:"the session's directory, absolute; default the server's"`
	Title        string `json:"title,omitempty" jsonschema:"the session's title"`
	Model        string `json:"model,omitempty" jsonschema:"provider/model or a model id among the configured ones; default the server's"`
	ApprovalMode string `json:"approval_mode,omitempty" jsonschema:"which tool calls run without asking: default, auto_edit or yolo"`
}

type transcriptArgs struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
}

func (s *Server) addSessionTools() {
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "session.list", Description: "List the sessions, most recently updated first."}, s.list)
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "session.create", Description: "Create a coding-agent session in a directory; answers its session_id."}, s.create)
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "session.prompt", Description: "Send a session a message and wait for the run's end; the reply's text streams as progress notifications when the call has a progressToken."}, s.prompt)
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "session.transcript", Description: "A session's conversation as markdown: prompts, replies, tool calls with their output."}, s.transcript)
}

// toolError is a call's failure as the client (and its model) sees it:
// an error result, not a JSON-RPC error.
func toolError(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// sessionError words a facade error on session id for the client. Every
// kind is a tool error (the model reads it and may act on it), never a
// JSON-RPC one; only an unknown session has words of its own
// (sessions.KindOf).
func SessionError(id string, err error) *sdk.CallToolResult {
	if sessions.KindOf(err) == sessions.KindNotFound {
		return toolError("no session %s", id)
	}
	return toolError("session %s: %v", id, err)
}

func (s *Server) list(ctx context.Context, _ *sdk.CallToolRequest, in listArgs) (*sdk.CallToolResult, any, error) {
	metas, err := s.cfg.Sessions.List(ctx, in.Cwd)
	if err != nil {
		return toolError("list sessions: %v", err), nil, nil
	}
	out := []sessionEntry{}
	for _, m := range metas {
		out = append(out, sessionEntry{SessionID: m.ID, Title: m.Title, Cwd: m.Cwd, Status: m.Status,
			Model: m.Model, LastSeq: m.LastSeq})
	}
	return nil, map[string]any{"sessions": out}, nil
}

func (s *Server) create(ctx context.Context, _ *sdk.CallToolRequest, in createArgs) (*sdk.CallToolResult, any, error) {
	created, err := s.newSession(in)
	if err != nil {
		return toolError("%v", err), nil, nil
	}
	id := sessions.NewID()
	if err := s.cfg.Sessions.Create(ctx, id, created); err != nil {
		return SessionError(id, err), nil, nil
	}
	return nil, map[string]any{"session_id": id, "cwd": created.Cwd}, nil
}

// newSession checks a create call into session.created's payload.
func (s *Server) newSession(in createArgs) (event.CreatedPayload, error) {
	cwd := cmp.Or(in.Cwd, s.cfg.DefaultCwd)
	cwd, err := workdir.Cwd(cwd)
	if err != nil {
		return event.CreatedPayload{}, err
	}
	set := s.cfg.Settings
	switch in.ApprovalMode {
	case "":
	case event.ApprovalDefault, event.ApprovalAutoEdit, event.ApprovalYolo:
		mode := in.ApprovalMode
		set.ApprovalMode = &mode
	default:
		return event.CreatedPayload{}, fmt.Errorf("approval_mode %q is not one of default, auto_edit, yolo", in.ApprovalMode)
	}
	if in.Model != "" {
		provider, model, err := s.model(in.Model)
		if err != nil {
			return event.CreatedPayload{}, err
		}
		set.Provider, set.Model = &provider, &model
	}
	return event.CreatedPayload{Cwd: cwd, Title: in.Title, Settings: set,
		OriginClient: "mcp", OriginTransport: "mcp-" + s.cfg.Transport}, nil
}

// model resolves "provider/model" or a model id among the configured ones.
func (s *Server) model(name string) (provider, model string, err error) {
	if s.cfg.Models != nil {
		for _, m := range s.cfg.Models.List() {
			if name == m.Provider+"/"+m.ID || name == m.ID {
				return m.Provider, m.ID, nil
			}
		}
	}
	return "", "", fmt.Errorf("model %q is not configured", name)
}

func (s *Server) transcript(ctx context.Context, _ *sdk.CallToolRequest, in transcriptArgs) (*sdk.CallToolResult, any, error) {
	if in.SessionID == "" {
		return toolError("session_id is required"), nil, nil
	}
	md, err := rest.Transcript(ctx, s.cfg.Sessions, in.SessionID)
	if err != nil {
		return SessionError(in.SessionID, err), nil, nil
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: md}}}, nil, nil
}
