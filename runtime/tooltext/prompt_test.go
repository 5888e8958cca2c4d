package tooltext

import (
	"encoding/json"
	"testing"
)

var specTools = []Tool{
	{Name: "run", Description: "Run a shell command and return its output.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
	{Name: "read_file", Description: "Read the full contents of a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "search", Description: "Search for a text pattern in files.", Parameters: json.RawMessage(`{"required":["path"],"properties":{"path":{"type":"string","properties":{"nested":{}}},"pattern":{"type":"string"}},"type":"object"}`)},
}

// The section of spec section 2, byte for byte.
const specToolsPrompt = `You have tools. To use one: <tool_call>{"name":"tool_name","args":{...}}</tool_call>
When done, respond without tool_call tags.

- run(command): Run a shell command and return its output.
- read_file(path): Read the full contents of a file.
- search(path, pattern): Search for a text pattern in files.
`

func TestToolsPrompt(t *testing.T) {
	requireEqual(t, ToolsPrompt(specTools), specToolsPrompt)
	requireEqual(t, ToolsPrompt(nil), "")
}

func TestToolsPromptParameterLists(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"schema order kept", `{"properties":{"limit":{},"path":{},"offset":{}}}`, "- t(limit, path, offset): d\n"},
		{"no schema", ``, "- t: d\n"},
		{"no properties", `{"type":"object"}`, "- t: d\n"},
		{"empty properties", `{"properties":{}}`, "- t: d\n"},
		{"properties not an object", `{"properties":[1]}`, "- t: d\n"},
		{"malformed schema", `{"properties":{"a":`, "- t: d\n"},
		{"not an object", `[{"properties":{"a":{}}}]`, "- t: d\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ToolsPrompt([]Tool{{Name: "t", Description: "d", Parameters: json.RawMessage(tt.schema)}})
			requireEqual(t, got, toolsHeader+tt.want)
		})
	}
}

func TestSystemPrompt(t *testing.T) {
	catalog := "## Available Skills\n\nsome skills\n"
	tools := specTools[:1]
	requireEqual(t, SystemPrompt("You are helpful.", catalog, tools),
		"You are helpful.\n\n"+catalog+"\n\n"+ToolsPrompt(tools))
	requireEqual(t, SystemPrompt("", "", tools), ToolsPrompt(tools))
	requireEqual(t, SystemPrompt("You are helpful.", "", nil), "You are helpful.")
	requireEqual(t, SystemPrompt("", "", nil), "")
}

func TestFormatResults(t *testing.T) {
	requireEqual(t, FormatResults([]ToolResult{
		{Name: "read_file", Content: "pub fn main() { ... }"},
		{Name: "run", Content: "Android Studio.app"},
	}), "Tool results:\n\n[read_file] pub fn main() { ... }\n\n[run] Android Studio.app")
	requireEqual(t, FormatResults([]ToolResult{{Name: "write", Content: ""}}), "Tool results:\n\n[write] OK")
	requireEqual(t, FormatResults(nil), "Tool results:\n\n")
}

func TestFinalAnswerRequest(t *testing.T) {
	requireEqual(t, FinalAnswerRequest, "You have reached the maximum number of turns. Please provide your final answer now.")
}
