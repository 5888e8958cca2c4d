package session

import (
	"cmp"
	"context"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/upstream"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/compaction"
	"github.com/troupehq/troupe/runtime/tools"
)

// Engine is what a session needs to run prompts. A session without one
// keeps its log and serves subscribers but refuses prompts.
type Engine struct {
	// Resolve picks the provider and model for a run from the session's
	// settings; it runs off the mailbox.
	Resolve func(ctx context.Context, st State) (run.Model, error)
	// Tools are offered to the model in every run.
	Tools func(st State) []tools.Tool
	// SystemPrompt is the session's base system prompt.
	SystemPrompt func(st State) string
	// DefaultMode is the approval mode when the session sets none.
	DefaultMode string
	// DenyUnapproved answers every approval request with a denial, for
	// protocols that cannot ask a person.
	DenyUnapproved bool
	MaxSteps       int
	Retry          run.Retry
	// Compaction tunes automatic and manual compaction; zero fields take
	// the defaults. The session's auto_compaction setting turns it off.
	Compaction compaction.Settings
	// SpillDir keeps the full output of truncated tool results.
	SpillDir string
	// NewID makes message and run ids.
	NewID func(prefix string) string
	// MCPServers, when set, adjusts the session's MCP servers before they
	// are started: the daemon points the entries it injected at where it
	// listens now, which may not be where it listened when it injected them.
	MCPServers func(sessionID string, servers []mcp.ServerConfig) []mcp.ServerConfig
	// Agents resolves an external agent's id to its program from the
	// daemon's catalogue, at each start of it; nil: no external agents.
	Agents func(id string) (upstream.Launch, error)
	// IsCommand says whether a prompt is a daemon's slash command, which
	// Command answers (off the mailbox) instead of an external agent:
	// troupe's own runs reach it through the provider Resolve wraps.
	IsCommand func(text string) bool
	Command   func(ctx context.Context, sessionID, text string) (string, error)
}

// InterruptedOutput is what the model is told of a tool call cut off by a
// restart: it may or may not have had its effect.
const InterruptedOutput = "Interrupted: troupe restarted while this tool call was running. " +
	"It did not finish, and it was not run again; check its effects before relying on them."

// approvalMode is the session's mode, defaulting to the engine's.
func (s *session) approvalMode() string {
	return cmp.Or(lo.FromPtr(s.f.st.Settings.ApprovalMode), s.cfg.Engine.DefaultMode, event.ApprovalDefault)
}

func blocksText(bs []event.Block) string {
	for _, b := range bs {
		if b.Type == "text" || b.Type == "" {
			return b.Text
		}
	}
	return ""
}

// reconfigure is what the running turn must hear of a settings change (nil:
// nothing): a new model resolution from the settings as now folded, and
// auto-retry.
func (s *session) reconfigure(set event.Settings) *run.Reconfigure {
	eng := s.cfg.Engine
	if eng == nil || eng.Resolve == nil || (set.Provider == nil && set.Model == nil && set.ThinkingLevel == nil && set.AutoRetry == nil) {
		return nil
	}
	re := &run.Reconfigure{AutoRetry: set.AutoRetry}
	if set.Provider != nil || set.Model != nil || set.ThinkingLevel != nil {
		st := s.f.st
		re.Resolve = func(ctx context.Context) (run.Model, error) { return eng.Resolve(ctx, st) }
	}
	return re
}
