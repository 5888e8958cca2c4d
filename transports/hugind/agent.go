package hugind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/troupehq/troupe/actors/agent"
	"github.com/troupehq/troupe/runtime/agentpkg"
)

func agentList(_ context.Context, b *Bridge, _ json.RawMessage, _ func(string, any)) (any, error) {
	list, err := agentpkg.List(b.Home)
	if err != nil {
		return nil, err
	}
	return map[string]any{"agents": list}, nil
}

func agentInstall(ctx context.Context, b *Bridge, raw json.RawMessage, _ func(string, any)) (any, error) {
	var p struct {
		Path               string `json:"path"`
		ApprovePermissions bool   `json:"approve_permissions"`
		Overwrite          bool   `json:"overwrite"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("path", p.Path); err != nil {
		return nil, err
	}
	info, err := agentpkg.Install(ctx, b.Home, p.Path, agentpkg.InstallOptions{ApprovePermissions: p.ApprovePermissions, Overwrite: p.Overwrite})
	switch {
	case errors.Is(err, agentpkg.ErrPermissionsNotApproved):
		return nil, fmt.Errorf("%w (set approve_permissions)", err)
	case errors.Is(err, agentpkg.ErrAlreadyInstalled):
		return nil, fmt.Errorf("%w (set overwrite to replace it)", err)
	case err != nil:
		return nil, err
	}
	return map[string]any{"installed": true, "name": info.Name, "path": info.Path, "version": info.Version}, nil
}

func agentRemove(_ context.Context, b *Bridge, raw json.RawMessage, _ func(string, any)) (any, error) {
	var p struct {
		Name string `json:"name"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("name", p.Name); err != nil {
		return nil, err
	}
	if err := agentpkg.Remove(b.Home, p.Name); err != nil {
		return nil, err
	}
	return map[string]any{"removed": true, "name": p.Name}, nil
}

// agentRun runs an agent to its end, its events going out as the
// request's; the request's cancellation (stdin closed with a signal, the
// MCP call cancelled) cancels the run. troupe adds cwd (default the
// bridge's directory) and timeout_ms (default agent.DefaultLimit).
func agentRun(ctx context.Context, b *Bridge, raw json.RawMessage, emit func(string, any)) (any, error) {
	var p struct {
		Path      string   `json:"path"`
		Args      []string `json:"args"`
		Cwd       string   `json:"cwd"`
		TimeoutMS int64    `json:"timeout_ms"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("path", p.Path); err != nil {
		return nil, err
	}
	if p.TimeoutMS < 0 {
		return nil, badParams("params.timeout_ms must not be negative, not %d", p.TimeoutMS)
	}
	host := agent.Host{Home: b.Home, Root: b.Root, Servers: b.Servers, Runs: b.AgentRuns}
	opts, err := host.Prepare(ctx, p.Path, p.Args, p.Cwd)
	if err != nil {
		return nil, err
	}
	opts.Limit = time.Duration(p.TimeoutMS) * time.Millisecond
	opts.Trace = agent.TraceEnabled()
	opts.Emit = func(e agent.Event) {
		if e.Kind == agent.KindTrace {
			if b.Trace != nil {
				fmt.Fprintf(b.Trace, "[trace %s] %s\n", opts.Manifest.Name, e.Data)
			}
			return
		}
		emit(e.Kind, e.Data)
	}
	res, err := agent.Run(ctx, host, opts)
	if err != nil {
		return nil, err
	}
	return res, nil
}
