package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/troupehq/troupe/runtime/tooltext"
)

// ToolName is the built-in tool that loads a skill's instructions.
const ToolName = "activate_skill"

const toolDescription = "Load a skill's full instructions into context. Use this before starting work that matches a listed skill."

// ErrUnknownSkill is returned by Activate for a name not in the catalog.
var ErrUnknownSkill = errors.New("unknown skill")

type stringProperty struct {
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Enum        []string `json:"enum,omitempty"`
}

type toolSchema struct {
	Type       string `json:"type"`
	Properties struct {
		Name stringProperty `json:"name"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// Tool is the activate_skill definition, which the spec adds after the
// agent's own tools when skills exist; with an empty catalog callers leave
// it out. Its schema lists the installed names so native function calling
// can check them; the text prompt only shows "activate_skill(name)".
func (c Catalog) Tool() tooltext.Tool {
	var schema toolSchema
	schema.Type = "object"
	schema.Properties.Name = stringProperty{Type: "string", Description: "Name of the skill to activate.", Enum: c.names()}
	schema.Required = []string{"name"}
	params, err := json.Marshal(schema)
	if err != nil {
		// Marshalling these fixed types cannot fail; fall back to no schema
		// rather than panic.
		params = nil
	}
	return tooltext.Tool{Name: ToolName, Description: toolDescription, Parameters: params}
}

// Activate runs activate_skill with the call's JSON arguments and returns
// the skill's instructions, the result the model reads (spec section 5).
// On error the caller reports tooltext.ErrorContent(err) instead.
func (c Catalog) Activate(arguments string) (string, error) {
	var args struct {
		Name *string `json:"name"`
	}
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		return "", fmt.Errorf("activate_skill arguments: %w", err)
	}
	if args.Name == nil {
		return "", errors.New(`activate_skill needs a "name" argument`)
	}
	name := strings.TrimSpace(*args.Name)
	s, ok := c.Lookup(name)
	if !ok {
		return "", fmt.Errorf("%w %q (available: %s)", ErrUnknownSkill, name, strings.Join(c.names(), ", "))
	}
	return s.Body, nil
}
