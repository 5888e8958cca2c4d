package session

import (
	"strconv"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/persistence/event"
)

// mcpState tracks the session's MCP server actors and the tools they offer.
// A run starts only once every server has answered (with tools or an
// error), so the model sees the same tools from its first step; after
// that, each server keeps its entry of set current (tools/list_changed, a
// reconnect) and every step reads it.
type mcpState struct {
	pids []*actor.PID
	set  *mcp.Toolset
	// secrets are the servers' credentials by server name, kept out of
	// the mcp.status errors the log records.
	secrets map[string][]string
	waiting int
	// deferred is a run asked to start (at step deferredStep) while servers
	// were still answering.
	deferred     string
	deferredStep int
}

// startMCP spawns one actor per configured server and asks each for its
// tools; replies come back as *mcp.ToolsReply, and changes of a server's
// state as *mcp.Status.
func (s *session) startMCP(ctx actor.Context) {
	if s.cfg.Engine == nil || len(s.mcp.pids) > 0 || len(s.f.st.MCPServers) == 0 || s.recovering {
		return
	}
	if s.external() != "" {
		return // forwarded to the agent, which runs them itself
	}
	servers, err := mcp.ParseServers(s.f.st.MCPServers)
	if err != nil {
		s.log.Error("mcp servers not started", "error", err)
		return
	}
	if s.cfg.Engine.MCPServers != nil {
		servers = s.cfg.Engine.MCPServers(s.cfg.ID, servers)
	}
	s.mcp.set = mcp.NewToolset(servers)
	s.mcp.secrets = map[string][]string{}
	for i, cfg := range servers {
		s.mcp.secrets[cfg.Name] = cfg.Secrets()
		props := mcp.Props(cfg, s.f.st.Cwd, mcp.WithToolset(s.mcp.set), mcp.WithLastStatus(s.f.st.MCPStatus[cfg.Name]))
		pid, err := ctx.SpawnNamed(props, mcpChildPrefix+strconv.Itoa(i))
		if err != nil {
			// The name is still taken (a predecessor's child on its way
			// out): it only costs the restart on a crash.
			pid = ctx.SpawnPrefix(props, mcpChildPrefix)
		}
		s.mcp.pids = append(s.mcp.pids, pid)
		s.mcp.waiting++
		ctx.Request(pid, &mcp.GetTools{})
	}
}

// onMCPTools counts the first answers; the server's actor has logged an
// unavailable server and reports it with *mcp.Status, once.
func (s *session) onMCPTools(ctx actor.Context, _ *mcp.ToolsReply) {
	if s.mcp.waiting > 0 {
		s.mcp.waiting--
	}
	if s.mcp.waiting == 0 && s.mcp.deferred != "" {
		run, step := s.mcp.deferred, s.mcp.deferredStep
		s.mcp.deferred = ""
		s.spawnTurn(ctx, run, step)
	}
}

// onMCPStatus records a server's change of state in the log, where every
// client can see it: that it never came up, dropped, or is back.
func (s *session) onMCPStatus(ctx actor.Context, m *mcp.Status) {
	if s.stopping || !s.claimed || s.failed {
		return
	}
	p := event.MCPStatusPayload{Server: m.Server, Status: m.Status, Tools: m.Tools}
	if m.Err != nil {
		p.Error = mcp.Redact(m.Err.Error(), s.mcp.secrets[m.Server])
	}
	d, err := event.NewDraft(event.MCPStatus, p)
	if err != nil {
		s.log.Error("mcp status not recorded", "error", err)
		return
	}
	s.commit(ctx, []event.Draft{d}, nil, nil)
}

// startTurn spawns the run's turn now, or once the MCP servers answered.
func (s *session) startTurn(ctx actor.Context, runID string, step int) {
	if s.mcp.waiting == 0 {
		s.spawnTurn(ctx, runID, step)
		return
	}
	s.mcp.deferred, s.mcp.deferredStep = runID, step
	s.turnRun = runID
}
