package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	acp "github.com/coder/acp-go-sdk"
	"github.com/troupehq/troupe/runtime/proc"
)

// ErrNoList: the agent does not advertise sessionCapabilities.list.
var ErrNoList = errors.New("the agent does not advertise sessionCapabilities.list")

// Remembered is one session an agent says it remembers (its session/list).
type Remembered struct {
	ID, Cwd, Title string
	UpdatedAt      string // the agent's ISO 8601, as it gave it
}

// maxListPages bounds the pages one listing follows: an agent whose
// cursor never ends must not keep the caller forever.
const maxListPages = 1000

// ListSessions starts the program l names in dir, initializes it and asks
// it session/list, page by page, then stops it (its whole process group).
// The program gets none of troupe's files or terminals: a listing needs
// none, so every request it makes is refused.
func ListSessions(ctx context.Context, l Launch, dir string) ([]Remembered, error) {
	cmd := proc.Command(l.Command, l.Args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range l.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("list sessions: start %s: %w", l.Command, err)
	}
	defer func() {
		stdin.Close()
		cmd.Terminate(stopGrace)
		_ = cmd.Wait()
		cmd.Release()
	}()
	conn := acp.NewClientSideConnection(refusing{}, stdin, stdout)
	// The SDK logs the peer's going; the listing's errors say what matters.
	conn.SetLogger(slog.New(slog.DiscardHandler))
	init, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientInfo: &acp.Implementation{Name: "troupe", Version: "1"}})
	if err != nil {
		return nil, fmt.Errorf("list sessions: initialize: %w", err)
	}
	if init.AgentCapabilities.SessionCapabilities.List == nil {
		return nil, ErrNoList
	}
	var out []Remembered
	var cursor *string
	for range maxListPages {
		res, err := conn.ListSessions(ctx, acp.ListSessionsRequest{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("list sessions: session/list: %w", err)
		}
		for _, s := range res.Sessions {
			r := Remembered{ID: string(s.SessionId), Cwd: s.Cwd}
			if s.Title != nil {
				r.Title = *s.Title
			}
			if s.UpdatedAt != nil {
				r.UpdatedAt = *s.UpdatedAt
			}
			out = append(out, r)
		}
		if res.NextCursor == nil || *res.NextCursor == "" {
			return out, nil
		}
		cursor = res.NextCursor
	}
	return out, nil
}

// refusing is the client side of a listing: it serves nothing.
type refusing struct{}

var errListing = errors.New("troupe serves nothing while listing sessions")

func (refusing) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errListing
}
func (refusing) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errListing
}
func (refusing) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
}
func (refusing) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }
func (refusing) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errListing
}
func (refusing) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errListing
}
func (refusing) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errListing
}
func (refusing) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errListing
}
func (refusing) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errListing
}
