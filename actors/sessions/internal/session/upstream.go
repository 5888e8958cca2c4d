package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions/internal/upstream"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/runtime/llm"
)

// BuiltinAgent is the agent id of troupe's own engine.
const BuiltinAgent = "troupe"

// ErrAgentOwns refuses what only troupe's own engine does (a compaction)
// in a session an external agent answers.
var ErrAgentOwns = errors.New("an external agent answers this session; it keeps its own context")

// agentChild prefixes the name of a session's agent actor (agent$N).
const agentChild = "agent"

// external is the session's external agent id; empty when troupe's own
// engine answers it.
func (s *session) external() string {
	id := lo.FromPtr(s.f.st.Settings.Agent)
	if id == BuiltinAgent {
		return ""
	}
	return id
}

// spawnAgentTurn hands the run to the session's agent actor, started
// with the session's first turn and kept until the session stops: it
// takes the run's place (runPID) until its run.Finished.
func (s *session) spawnAgentTurn(ctx actor.Context, runID string) {
	s.turnToken = turnTokens.Add(1)
	s.turnRun = runID
	if s.agentPID == nil || s.agentID != s.external() {
		if s.agentPID != nil {
			ctx.Stop(s.agentPID) // a swap: the old agent's program ends with it
		}
		s.agentID = s.external()
		s.agentPID = s.spawnAgent(ctx)
	}
	s.runPID = s.agentPID
	conv := s.f.conv.Clone()
	turn := &upstream.Turn{
		RunID: runID, Token: s.turnToken, Prompt: s.promptOf(runID),
		UpstreamID: lo.FromPtr(s.f.st.Settings.UpstreamSessionID),
		Brief:      func() string { return TakeoverBrief(conv, runID) },
	}
	if eng, text := s.cfg.Engine, blocksText(turn.Prompt); eng.IsCommand != nil && eng.Command != nil && eng.IsCommand(text) {
		// The daemon's verb, not the agent's prompt.
		id := s.cfg.ID
		turn.Command = func(ctx context.Context) (string, error) { return eng.Command(ctx, id, text) }
	}
	ctx.Send(s.agentPID, turn)
}

func (s *session) spawnAgent(ctx actor.Context) *actor.PID {
	eng, st := s.cfg.Engine, s.f.st
	cfg := upstream.Config{
		SessionID: s.cfg.ID, AgentID: s.agentID, Args: st.Settings.AgentArgs,
		Cwd: st.Cwd, Dirs: st.AdditionalDirs, MCPServers: s.agentServers(),
		Session: ctx.Self(), NewID: eng.NewID, Cost: st.Usage.Cost,
		Resolve: func(id string) (upstream.Launch, error) {
			if eng.Agents == nil {
				return upstream.Launch{}, fmt.Errorf("this daemon runs no external agents")
			}
			return eng.Agents(id)
		},
	}
	// A name of its own each time: a swapped-out agent may still be on its
	// way out, and its Terminated must not be taken for its successor's.
	return ctx.SpawnPrefix(upstream.Props(cfg), agentChild)
}

// agentServers are the session's MCP servers as the agent is given them,
// in ACP's shape: the daemon's own entries pointed at where it listens
// now, with this run's tokens (Engine.MCPServers), as troupe's own
// sessions get them.
func (s *session) agentServers() json.RawMessage {
	servers, err := mcp.ParseServers(s.f.st.MCPServers)
	if err != nil {
		s.log.Warn("mcp servers not forwarded to the agent", "error", err)
		return nil
	}
	if eng := s.cfg.Engine; eng.MCPServers != nil && len(servers) > 0 {
		servers = eng.MCPServers(s.cfg.ID, servers)
	}
	out := make([]map[string]any, 0, len(servers))
	for _, c := range servers {
		if c.Transport() == mcp.TransportStdio {
			// ACP's stdio entry has no type, and always args and env.
			out = append(out, map[string]any{"name": c.Name, "command": c.Command,
				"args": lo.Ternary(c.Args == nil, []string{}, c.Args), "env": lo.Ternary(c.Env == nil, []mcp.EnvVariable{}, c.Env)})
			continue
		}
		out = append(out, map[string]any{"type": c.Type, "name": c.Name, "url": c.URL,
			"headers": lo.Ternary(c.Headers == nil, []mcp.HTTPHeader{}, c.Headers)})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// promptOf is the prompt runID delivered, from the conversation.
func (s *session) promptOf(runID string) []event.Block {
	for _, e := range s.f.conv.Entries() {
		if e.ID != runID {
			continue
		}
		blocks := []event.Block{{Type: "text", Text: e.Message.Content}}
		for _, im := range e.Message.Images {
			blocks = append(blocks, event.Block{Type: "image", MimeType: im.MIMEType, Data: im.Data})
		}
		return blocks
	}
	return nil
}

// TakeoverBrief is the recorded conversation before the prompt runID,
// told to an agent that takes a session over without having seen it (a
// fresh upstream session: the agent could not load its own, or another
// agent answered before); empty when there is nothing before it.
func TakeoverBrief(conv *conversation.Conversation, runID string) string {
	var b strings.Builder
	for _, e := range conv.Entries() {
		if e.ID == runID {
			break
		}
		m := e.Message
		switch m.Role {
		case llm.RoleUser:
			fmt.Fprintf(&b, "\n[user]\n%s\n", m.Content)
		case llm.RoleAssistant:
			if m.Content != "" {
				fmt.Fprintf(&b, "\n[assistant]\n%s\n", m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "\n[assistant called %s]\n%s\n", c.Name, c.Arguments)
			}
		case llm.RoleTool:
			fmt.Fprintf(&b, "\n[tool result]\n%s\n", m.Content)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "You are taking over a conversation that was held before you joined it. " +
		"Here it is as recorded, oldest first; the user's new message follows it.\n" +
		"<conversation>" + b.String() + "</conversation>"
}
