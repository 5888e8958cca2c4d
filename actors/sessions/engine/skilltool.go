package engine

import (
	"context"
	"encoding/json"

	"github.com/troupehq/troupe/runtime/skills"
	"github.com/troupehq/troupe/runtime/tools"
)

// skillTool offers activate_skill as a tool like any other.
type skillTool struct{ catalog skills.Catalog }

func (s skillTool) Name() string                { return skills.ToolName }
func (s skillTool) Description() string         { return s.catalog.Tool().Description }
func (s skillTool) Parameters() json.RawMessage { return s.catalog.Tool().Parameters }
func (s skillTool) Category() tools.Category    { return tools.CategoryInfo }

func (s skillTool) Run(_ context.Context, call tools.Call, _ func(string)) (tools.Result, error) {
	body, err := s.catalog.Activate(string(call.Args))
	if err != nil {
		return tools.Result{IsError: true, Output: "Error: " + err.Error()}, nil
	}
	return tools.Result{Output: body}, nil
}
