package session

import (
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// mcpChildPrefix names the session's MCP server actors ("mcp-<index>"), so
// its supervisor tells them from its other children, and a restart keeps
// the PID the tools handed out hold.
const mcpChildPrefix = "mcp-"

// childStrategy stops a crashed queue, turn or subscription (childStopped
// rebuilds them from the current fold) but restarts a crashed MCP server
// actor, a few times a minute: its Restarting closes the connection and
// ends the server, and the new incarnation connects again.
type childStrategy struct{ stop, mcp actor.SupervisorStrategy }

func newChildStrategy() childStrategy {
	return childStrategy{
		stop: actor.NewOneForOneStrategy(0, time.Second, func(any) actor.Directive { return actor.StopDirective }),
		mcp:  actor.NewOneForOneStrategy(5, time.Minute, func(any) actor.Directive { return actor.RestartDirective }),
	}
}

func (c childStrategy) HandleFailure(sys *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, rs *actor.RestartStatistics, reason, msg any) {
	if isMCPChild(child) {
		c.mcp.HandleFailure(sys, sup, child, rs, reason, msg)
		return
	}
	c.stop.HandleFailure(sys, sup, child, rs, reason, msg)
}

func isMCPChild(pid *actor.PID) bool {
	id := pid.GetId()
	return strings.HasPrefix(id[strings.LastIndexByte(id, '/')+1:], mcpChildPrefix)
}
