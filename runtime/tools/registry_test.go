package tools

import (
	"encoding/json"
	"testing"
)

func TestBuiltinsDescribeThemselves(t *testing.T) {
	wantCategory := map[string]Category{
		"read": CategoryInfo, "write": CategoryEdit, "edit": CategoryEdit, "bash": CategoryExec,
		"glob": CategoryInfo, "grep": CategoryInfo, "ls": CategoryInfo,
	}
	tools := Builtins()
	requireEqual(t, len(tools), len(wantCategory))
	for _, tool := range tools {
		requireEqual(t, tool.Category(), wantCategory[tool.Name()])
		if tool.Description() == "" {
			t.Errorf("%s has no description", tool.Name())
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tool.Parameters(), &schema); err != nil {
			t.Fatalf("%s: parameters are not valid JSON: %v", tool.Name(), err)
		}
		requireEqual(t, schema.Type, "object")
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tool.Name(), r)
			}
		}
	}
}

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(Builtins()...)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, len(r.Tools()), 7)
	requireEqual(t, r.Tools()[0].Name(), "read")
	for _, name := range []string{"bash", "Bash", "BASH"} {
		if tool, ok := r.Lookup(name); !ok || tool.Name() != "bash" {
			t.Errorf("Lookup(%q) = %v, %v", name, tool, ok)
		}
	}
	if _, ok := r.Lookup("spawn"); ok {
		t.Error("Lookup found a tool that was never registered")
	}
	if err := r.Register(Read{}); err == nil {
		t.Error("registering a duplicate name succeeded")
	}
	if _, err := NewRegistry(Ls{}, Ls{}); err == nil {
		t.Error("NewRegistry accepted duplicate names")
	}
}
