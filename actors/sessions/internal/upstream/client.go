package upstream

import (
	"context"
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// client is troupe's side of the connection: what the agent asks of its
// client. The connection calls it from its goroutines (updates in order
// from its reader, requests each from its own), so it touches no actor
// state: updates and permission requests go to the actor's mailbox, files
// and terminals are served here within the session's directories.
type client struct {
	a   *agent
	gen int
}

var _ acp.Client = (*client)(nil)

// handle answers one request of the agent's by method.
func (c *client) handle(method string, params json.RawMessage) (any, error) {
	ctx := c.a.ctx
	switch method {
	case "session/request_permission":
		return serve(ctx, params, c.RequestPermission)
	case "fs/read_text_file":
		return serve(ctx, params, c.ReadTextFile)
	case "fs/write_text_file":
		return serve(ctx, params, c.WriteTextFile)
	case "terminal/create":
		return serve(ctx, params, c.CreateTerminal)
	case "terminal/output":
		return serve(ctx, params, c.TerminalOutput)
	case "terminal/wait_for_exit":
		return serve(ctx, params, c.WaitForTerminalExit)
	case "terminal/kill":
		return serve(ctx, params, c.KillTerminal)
	case "terminal/release":
		return serve(ctx, params, c.ReleaseTerminal)
	}
	return nil, acp.NewMethodNotFound(method)
}

func serve[Req, Res any](ctx context.Context, params json.RawMessage, fn func(context.Context, Req) (Res, error)) (any, error) {
	var req Req
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, acp.NewInvalidParams(map[string]string{"error": err.Error()})
	}
	return fn(ctx, req)
}

func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.updates([]acp.SessionNotification{n})
	return nil
}

// updates hands a run of updates to the actor, in order.
func (c *client) updates(ns []acp.SessionNotification) {
	c.a.sys.Root.Send(c.a.self, &updated{gen: c.gen, ns: ns})
}

func (c *client) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	reply := make(chan acp.RequestPermissionResponse, 1)
	c.a.sys.Root.Send(c.a.self, &permissionAsked{gen: c.gen, req: req, reply: reply})
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	case <-c.a.ctx.Done():
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	}
}

func (c *client) ReadTextFile(_ context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	text, err := c.a.files.read(req.Path, req.Line, req.Limit)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	return acp.ReadTextFileResponse{Content: text}, nil
}

func (c *client) WriteTextFile(_ context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, c.a.files.write(req.Path, req.Content)
}

func (c *client) CreateTerminal(_ context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	id, err := c.a.terms.create(req)
	return acp.CreateTerminalResponse{TerminalId: id}, err
}

func (c *client) TerminalOutput(_ context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return c.a.terms.output(req.TerminalId)
}

func (c *client) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return c.a.terms.wait(ctx, req.TerminalId)
}

func (c *client) KillTerminal(_ context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, c.a.terms.kill(req.TerminalId)
}

func (c *client) ReleaseTerminal(_ context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, c.a.terms.release(req.TerminalId)
}
