package rest

import (
	"encoding/json"

	"github.com/troupehq/troupe/persistence/event"
)

// ACP content blocks and tool-call fields built from the event schema.

func textBlock(text string) map[string]any { return map[string]any{"type": "text", "text": text} }

func block(b event.Block) map[string]any {
	out := map[string]any{"type": b.Type}
	switch b.Type {
	case "text":
		out["text"] = b.Text
	case "image":
		out["data"], out["mimeType"] = b.Data, b.MimeType
	default:
		out["uri"] = b.URI
		if b.Text != "" {
			out["text"] = b.Text
		}
	}
	return out
}

func blocks(bs []event.Block) []map[string]any {
	out := make([]map[string]any, 0, len(bs))
	for _, b := range bs {
		out = append(out, block(b))
	}
	return out
}

// textContent is a tool call's content list holding one text block.
func textContent(text string) []map[string]any {
	if text == "" {
		return []map[string]any{}
	}
	return []map[string]any{{"type": "content", "content": textBlock(text)}}
}

// rawArgs is the call's arguments as JSON, or the text as is when the
// model wrote something that is not JSON.
func rawArgs(args string) any {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	return args
}

func toolTitle(name, description string) string {
	if description != "" {
		return description
	}
	return name
}

// toolKind maps troupe's tool categories to ACP's tool kinds.
func toolKind(category string) string {
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
