package modelconfig

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// ToolStyle is how tools are offered to a model.
type ToolStyle string

const (
	// ToolStyleNative uses the API's tools/tool_calls fields.
	ToolStyleNative ToolStyle = "native"
	// ToolStyleText describes tools in the system prompt and parses calls
	// out of the reply, for models without function calling.
	ToolStyleText ToolStyle = "text"
	// ToolStyleAuto lets the engine decide, e.g. from the server's chat
	// template support.
	ToolStyleAuto ToolStyle = "auto"
)

// ParseToolStyle accepts native, text or auto; empty means auto.
func ParseToolStyle(s string) (ToolStyle, error) {
	switch ToolStyle(s) {
	case "":
		return ToolStyleAuto, nil
	case ToolStyleNative, ToolStyleText, ToolStyleAuto:
		return ToolStyle(s), nil
	}
	return "", fmt.Errorf("tool_style %q: want native, text or auto", s)
}

// UnmarshalYAML rejects unknown styles at load time, with the line, rather
// than when a session first calls a tool.
func (t *ToolStyle) UnmarshalYAML(node *yaml.Node) error {
	style, err := ParseToolStyle(node.Value)
	if err != nil {
		return lineError(node, err)
	}
	*t = style
	return nil
}
