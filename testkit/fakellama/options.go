package fakellama

import (
	"fmt"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// Options shape a fake server. The zero value is a ready server whose model
// id is "model" with 1024 tokens of context and one slot, echoing.
type Options struct {
	// ModelPath is what /props reports as model_path, and the model id when
	// Alias is empty (llama-server does the same with -m).
	ModelPath string
	Alias     string
	// CtxSize is the whole context (-c); each slot gets CtxSize/Slots, as
	// llama-server divides it.
	CtxSize int
	Slots   int
	// APIKeys, when set, guard every route but /health and /v1/health.
	APIKeys []string
	// LoadTime is how long every route answers 503 after New.
	LoadTime time.Duration
	// Hold keeps the server loading (503) until SetReady, whatever
	// LoadTime says: for a program that must do more before it serves.
	Hold bool
	// Replies are answered in order, one per chat completion; once used up
	// the server echoes.
	Replies []Reply
	// TokenDelay is a pause before each streamed content frame.
	TokenDelay time.Duration
	// OnCompletion, when set, runs as completion n (from 1) begins; it may
	// block (a hang) or end the process (a crash).
	OnCompletion func(n int)
}

// Reply is one scripted assistant answer.
type Reply struct {
	Content   string     `yaml:"content" json:"content"`
	ToolCalls []ToolCall `yaml:"tool_calls" json:"tool_calls"`
	// Status, when not 0 or 200, makes the reply an error of that status
	// with Content as its message, in llama-server's error envelope.
	Status int `yaml:"status" json:"status"`
}

// ToolCall is one scripted call; Arguments is the JSON text of its arguments.
type ToolCall struct {
	Name      string `yaml:"name" json:"name"`
	Arguments string `yaml:"arguments" json:"arguments"`
}

// LoadReplies reads a YAML (or JSON) list of replies.
func LoadReplies(path string) ([]Reply, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read replies: %w", err)
	}
	var rs []Reply
	if err := yaml.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("parse replies %s: %w", path, err)
	}
	return rs, nil
}

func (o Options) withDefaults() Options {
	if o.ModelPath == "" {
		o.ModelPath = "model"
	}
	if o.CtxSize <= 0 {
		o.CtxSize = 1024
	}
	if o.Slots <= 0 {
		o.Slots = 1
	}
	return o
}

func (o Options) modelID() string {
	if o.Alias != "" {
		return o.Alias
	}
	return o.ModelPath
}
