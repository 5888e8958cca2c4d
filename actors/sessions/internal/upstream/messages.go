package upstream

import (
	"context"
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	acp "github.com/coder/acp-go-sdk"
	"github.com/troupehq/troupe/actors/process"
	"github.com/troupehq/troupe/persistence/event"
)

// Launch is how the agent's program starts.
type Launch struct {
	Command string
	Args    []string
	Env     map[string]string
}

// Turn asks the agent to answer one prompt. The actor emits the turn's
// events with Token and ends it with run.ended and run.Finished.
type Turn struct {
	RunID  string
	Token  uint64
	Prompt []event.Block
	// Brief builds the takeover brief (the recorded history before this
	// prompt) that goes before the prompt when the agent starts a fresh
	// session for a log that already has a conversation: it could not
	// load the session it had, or it never had one (an agent swap).
	Brief func() string
	// UpstreamID is the session the agent last gave (empty: none yet).
	UpstreamID string
	// Model is the model a client chose for the agent (empty: the
	// agent's own choice), sent to it before the prompt when it is on
	// another.
	Model string
	// Command, when set, answers the prompt instead of the agent: a
	// daemon's slash command (`/hydra …`), run off the mailbox; its reply
	// is the turn's message.
	Command func(ctx context.Context) (string, error)
}

// Config is everything one session's agent needs.
type Config struct {
	SessionID string
	AgentID   string
	// Resolve finds the agent's program in the daemon's catalogue; it is
	// asked at each start, so the command is never one a log recorded.
	Resolve func(agentID string) (Launch, error)
	// Args are the session's agent args, appended to the catalogue's.
	Args []string
	Cwd  string
	Dirs []string // the session's additional directories
	// MCPServers are the session's servers (ACP's shape), forwarded to
	// the agent's session/new and session/load.
	MCPServers json.RawMessage
	// Cost is the session's recorded cost: what the agent's total for a
	// session it loads already counts.
	Cost    float64
	Session *actor.PID // receives run.Emit and run.Finished
	NewID   func(prefix string) string
}

// internal messages
type (
	// connected: the program answered initialize and session/new or
	// session/load (err: it did not).
	connected struct {
		gen        int
		upstreamID string
		loaded     bool
		models     *event.AgentModels
		err        error
	}
	// updated is a run of session/updates the agent sent back to back.
	updated struct {
		gen int
		ns  []acp.SessionNotification
	}
	promptDone struct {
		gen   int
		token uint64
		resp  acp.PromptResponse
		err   error
	}
	permissionAsked struct {
		gen   int
		req   acp.RequestPermissionRequest
		reply chan acp.RequestPermissionResponse
	}
	startNow struct{ gen int }
	// drained: the program that exited has had its output read to the
	// end (or a while passed), so its last updates are in the mailbox
	// before its exit is handled.
	drained struct {
		proc   *actor.PID
		exited *process.Exited
	}
	commandDone struct {
		token uint64
		reply string
		err   error
	}
)
