package daemon

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/hugind"
	"github.com/troupehq/troupe/transports/mcp"
)

// daemonMCP is the MCP server the daemon serves at /mcp: the session
// tools on the daemon's sessions, and the bridge's llama-server tools on
// the daemon's servers supervisor sup, the one its sessions use.
func daemonMCP(rt *actors.Runtime, eng *engine.Engine, sup *actor.PID, settings event.Settings, cwd, version string, log *slog.Logger) *mcp.Server {
	return mcp.New(mcp.Config{
		Sessions: rt.Sessions, Models: eng.Models(), Settings: settings, DefaultCwd: cwd, Transport: "http",
		Version: version, Log: log,
		Bridge: &hugind.Bridge{Home: rt.Home, Root: rt.System.Root, Servers: sup, AgentRuns: rt.Spawner(actors.SpawnerAgentRuns), Log: log},
	})
}
