package session

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/session/mcp"
	"github.com/troupehq/troupe/runtime/tools"
)

// mcpState tracks the session's MCP server actors and the tools they offer.
// A run starts only once every server has answered (with tools or an
// error), so the model sees the same tools from its first step.
type mcpState struct {
	pids    []*actor.PID
	tools   []tools.Tool
	waiting int
	// deferred is a run asked to start (at step deferredStep) while servers
	// were still answering.
	deferred     string
	deferredStep int
}

// startMCP spawns one actor per configured server and asks each for its
// tools; replies come back as *mcp.ToolsReply.
func (s *session) startMCP(ctx actor.Context) {
	if s.cfg.Engine == nil || len(s.mcp.pids) > 0 || len(s.f.st.MCPServers) == 0 || s.recovering {
		return
	}
	servers, err := mcp.ParseServers(s.f.st.MCPServers)
	if err != nil {
		s.log.Error("mcp servers not started", "error", err)
		return
	}
	if s.cfg.Engine.MCPServers != nil {
		servers = s.cfg.Engine.MCPServers(s.cfg.ID, servers)
	}
	for _, cfg := range servers {
		pid := ctx.Spawn(mcp.Props(cfg, s.f.st.Cwd))
		s.mcp.pids = append(s.mcp.pids, pid)
		s.mcp.waiting++
		ctx.Request(pid, &mcp.GetTools{})
	}
}

func (s *session) onMCPTools(ctx actor.Context, m *mcp.ToolsReply) {
	if s.mcp.waiting > 0 {
		s.mcp.waiting--
	}
	if m.Err != nil {
		s.log.Warn("mcp server unavailable; its tools are not offered", "server", m.Server, "error", m.Err)
	} else {
		s.mcp.tools = append(s.mcp.tools, m.Tools...)
	}
	if s.mcp.waiting == 0 && s.mcp.deferred != "" {
		run, step := s.mcp.deferred, s.mcp.deferredStep
		s.mcp.deferred = ""
		s.spawnTurn(ctx, run, step)
	}
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
