package acp

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/acp/pipeline"
)

// The slash commands a session's clients may send (availableCommands):
// every attach-like answer lists them, and every attached client is sent
// available_commands_update when a process registers or loses its verbs,
// as Hydra's TUI completes slash commands from the one and then the other.

// commandsChanged tells a connection the available commands changed.
type commandsChanged struct{}

// availableCommands is the list every answer and update carries.
func (c *conn) availableCommands() []pipeline.AdvertisedCommand {
	return c.cfg.Pipeline.AvailableCommands()
}

// announceCommands tells every connection attached to a session that the
// commands changed (each sends its own clients the update).
func (c *conn) announceCommands(ctx actor.Context) {
	for _, pid := range c.cfg.Pipeline.AllWatching() {
		ctx.Send(pid, &commandsChanged{})
	}
}

// onCommandsChanged sends each session this connection is attached to
// the new list. One whose replay is under way learns it from its answer.
func (c *conn) onCommandsChanged(ctx actor.Context) {
	cmds := c.availableCommands()
	for id, a := range c.att {
		if a.replay != nil {
			continue
		}
		c.notify(ctx, "session/update", map[string]any{"sessionId": id, "update": map[string]any{
			"sessionUpdate": "available_commands_update", "availableCommands": cmds,
		}})
	}
}
