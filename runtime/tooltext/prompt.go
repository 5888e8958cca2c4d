package tooltext

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Tool describes a tool to the model.
type Tool struct {
	Name        string
	Description string
	// Parameters is the tool's JSON schema; the prompt lists the keys of its
	// "properties" object.
	Parameters json.RawMessage
}

// callExample is the calling convention the prompt teaches.
const callExample = `<tool_call>{"name":"tool_name","args":{...}}</tool_call>`

const toolsHeader = "You have tools. To use one: " + callExample + "\n" +
	"When done, respond without tool_call tags.\n\n"

// ToolsPrompt renders the tools section of the system prompt (spec section
// 2): the calling convention, then one "- name(param, ...): description"
// line per tool. It is empty when there are no tools. Parameters appear in
// the order the schema lists them.
func ToolsPrompt(tools []Tool) string {
	if len(tools) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(toolsHeader)
	for _, t := range tools {
		b.WriteString("- ")
		b.WriteString(t.Name)
		if names := propertyNames(t.Parameters); len(names) > 0 {
			b.WriteByte('(')
			b.WriteString(strings.Join(names, ", "))
			b.WriteByte(')')
		}
		b.WriteString(": ")
		b.WriteString(t.Description)
		b.WriteByte('\n')
	}
	return b.String()
}

// SystemPrompt assembles the system prompt in the spec's order: the agent's
// own prompt, the skills catalog, then the tools section (with
// activate_skill among tools when there are skills). Empty parts are left
// out; the others are separated by a blank line, which is byte for byte
// what hugind sends when the agent's prompt is not empty.
func SystemPrompt(custom, skillsCatalog string, tools []Tool) string {
	parts := make([]string, 0, 3)
	for _, p := range [...]string{custom, skillsCatalog, ToolsPrompt(tools)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n\n")
}

// propertyNames lists the keys of schema.properties in document order. A
// missing or malformed schema yields none: the tool is then shown without
// a parameter list rather than failing the whole prompt.
func propertyNames(schema json.RawMessage) []string {
	if len(schema) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	if !openObject(dec) {
		return nil
	}
	for dec.More() {
		key, ok := nextKey(dec)
		if !ok {
			return nil
		}
		if key == "properties" {
			return objectKeys(dec)
		}
		if !skipValue(dec) {
			return nil
		}
	}
	return nil
}

func objectKeys(dec *json.Decoder) []string {
	if !openObject(dec) {
		return nil
	}
	var keys []string
	for dec.More() {
		key, ok := nextKey(dec)
		if !ok || !skipValue(dec) {
			return nil
		}
		keys = append(keys, key)
	}
	return keys
}

func openObject(dec *json.Decoder) bool {
	tok, err := dec.Token()
	return err == nil && tok == json.Delim('{')
}

func nextKey(dec *json.Decoder) (string, bool) {
	tok, err := dec.Token()
	if err != nil {
		return "", false
	}
	key, ok := tok.(string)
	return key, ok
}

func skipValue(dec *json.Decoder) bool {
	var skip json.RawMessage
	return dec.Decode(&skip) == nil
}
