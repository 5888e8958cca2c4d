package main

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/servers"
	"github.com/troupehq/troupe/actors/sessions/engine"
)

// startLongLivedServers is the llama-server supervisor of a long-lived
// command (troupe daemon, troupe mcp): its servers outlive a crash and the
// next start adopts them, a clean stop ends them. The engine then resolves
// --provider llama on it. A model that does not resolve is only warned
// about: these commands serve more than prompts (logs, the bridge's
// tools), and prompts fail until one resolves.
func startLongLivedServers(rt *actors.Runtime, eng *engine.Engine, log *slog.Logger) (*actor.PID, error) {
	sup, err := rt.StartServers(servers.Options{Outlive: true})
	if err != nil {
		return nil, err
	}
	eng.SetLocalServers(rt.LocalServers(sup))
	if err := eng.Check(); err != nil {
		log.Warn("no model resolves; prompts will fail", "error", err)
	}
	return sup, nil
}
