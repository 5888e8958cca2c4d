package run

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/compaction"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/tools"
)

// Retry configures automatic retries of transient provider errors.
type Retry struct {
	Enabled     bool
	MaxAttempts int           // total attempts including the first; default 4
	BaseDelay   time.Duration // doubled per retry; default 2 s
}

// Config is everything one run needs.
type Config struct {
	SessionID string
	RunID     string
	Token     uint64     // set by the session; echoed on every message to it
	Session   *actor.PID // receives *Emit and *Finished
	Queue     *actor.PID // answers *queue.TakeMessages

	// Resolve, when set, picks Provider, Model and the rest at the start of
	// the run; otherwise the fields below are used as given.
	Resolve   Resolver
	Provider  llm.Provider
	Model     string
	MaxTokens int
	Thinking  llm.ThinkingLevel
	ToolStyle string // native | text
	Cost      func(event.Usage) float64

	SystemPrompt string
	Tools        []tools.Tool
	// ExtraTools, when set, is read at the start of each step for tools
	// whose set changes while a run goes on (the MCP servers', after
	// tools/list_changed or a reconnect); they follow Tools.
	ExtraTools func() []tools.Tool
	Policy     Policy
	// Conversation is the history so far, the run's prompt included; the
	// turn extends its own copy.
	Conversation *conversation.Conversation
	MaxSteps     int // default 50
	StartStep    int // steps already taken (a resumed run)
	Retry        Retry

	// ContextWindow and Compaction drive automatic compaction (the model's
	// window from Resolve wins).
	ContextWindow int
	Compaction    compaction.Settings
	// CompactOnly makes this turn a manual compaction: no prompt, no run
	// events, just compaction.started/ended and a *Compacted to the session.
	CompactOnly  bool
	Instructions string

	Cwd         string
	AllowedDirs []string
	SpillDir    string
	// Marker, when set, names the marker a tool call's processes carry
	// (tools.Call.Marker), from the call's id.
	Marker func(toolCallID string) string
	NewID  func(prefix string) string
	// Dispatcher runs the turn's mailbox; nil is protoactor's default.
	Dispatcher actor.Dispatcher
}

func (c *Config) defaults() {
	if c.MaxSteps <= 0 {
		c.MaxSteps = 50
	}
	if c.Retry.MaxAttempts <= 0 {
		c.Retry.MaxAttempts = 4
	}
	if c.Retry.BaseDelay <= 0 {
		c.Retry.BaseDelay = 2 * time.Second
	}
	if c.ToolStyle == "" {
		c.ToolStyle = event.ToolStyleNative
	}
	if c.Conversation == nil {
		c.Conversation = &conversation.Conversation{}
	}
}

// Props builds the turn actor for one run.
func Props(cfg Config) *actor.Props {
	cfg.defaults()
	opts := []actor.PropsOption{actor.WithSupervisor(actor.NewOneForOneStrategy(0, time.Second, func(any) actor.Directive {
		// A crashed tool-call actor is not restarted: its call failed.
		return actor.StopDirective
	}))}
	if cfg.Dispatcher != nil {
		opts = append(opts, actor.WithDispatcher(cfg.Dispatcher))
	}
	return actor.PropsFromProducer(func() actor.Actor { return &turn{cfg: cfg} }, opts...)
}
