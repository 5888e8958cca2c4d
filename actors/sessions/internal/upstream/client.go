package upstream

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// client is troupe's side of the connection: what the agent asks of its
// client. The SDK calls it from its own goroutines (notifications in
// order from one of them, requests each from its own), so it touches no
// actor state: updates and permission requests go to the actor's mailbox,
// files and terminals are served here within the session's directories.
type client struct {
	a   *agent
	gen int
}

var _ acp.Client = (*client)(nil)

func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.a.sys.Root.Send(c.a.self, &updated{gen: c.gen, n: n})
	return nil
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
