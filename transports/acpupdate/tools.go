package acpupdate

import (
	"encoding/json"
	"strings"

	"github.com/troupehq/troupe/transports/projection"
)

// ToolKind is ACP's ToolKind (read, edit, delete, move, search, execute,
// think, fetch, other) for a built-in tool by its name, else by its
// category.
func ToolKind(name, category string) string {
	switch name {
	case "read":
		return "read"
	case "write", "edit":
		return "edit"
	case "bash":
		return "execute"
	case "glob", "grep", "ls":
		return "search"
	}
	switch category {
	case "info":
		return "read"
	case "edit":
		return "edit"
	case "exec":
		return "execute"
	}
	return "other"
}

// ToolTitle is how a tool call is titled to clients: its name, and an MCP
// server's tool (named "<server>__<tool>" for the model) in the form
// Claude Code gives it, "mcp__<server>__<tool>", which Hydra's clients
// match on (hydra cat approves "mcp__hydra-acp-stdin__*" unattended).
func ToolTitle(name string) string {
	if strings.Contains(name, "__") && !strings.HasPrefix(name, "mcp__") {
		return "mcp__" + name
	}
	return name
}

// ToolState is a call's whole current state, without its sessionUpdate
// (the toolCall of a permission request as it is).
func ToolState(call *projection.ToolCall) *ToolCall {
	u := &ToolCall{ToolCallID: call.ID, Title: ToolTitle(call.Name), Kind: ToolKind(call.Name, call.Category), Status: ToolStatus(call)}
	u.RawInput = RawInput(call.Arguments)
	out := call.Output
	if call.Result != nil {
		out = call.Result.Output
	}
	if out != "" {
		u.Content = []ToolContent{{Type: "content", Content: &ContentBlock{Type: "text", Text: out}}}
	}
	return u
}

// RawInput is a call's arguments as rawInput: nil when they are not JSON
// (a model that wrote something else), which ACP's rawInput cannot carry.
func RawInput(args string) json.RawMessage {
	if args == "" || !json.Valid([]byte(args)) {
		return nil
	}
	return json.RawMessage(args)
}

// ToolStatus is ACP's status of a call: pending, in_progress, completed or
// failed.
func ToolStatus(call *projection.ToolCall) string {
	switch call.State {
	case projection.CallRunning:
		return "in_progress"
	case projection.CallRefused:
		return "failed"
	case projection.CallDone:
		if call.Result != nil && call.Result.Status == "success" {
			return "completed"
		}
		return "failed"
	}
	return "pending"
}
