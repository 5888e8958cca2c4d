package tools

import (
	"encoding/json"
	"testing"
)

func TestDecodeArgsErrors(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "a.txt", "x\n")
	cases := []struct {
		name string
		tool Tool
		args json.RawMessage
		want []string
	}{
		{"wrong type names field", Read{}, json.RawMessage(`{"path":"a.txt","offset":"ten"}`), []string{`"offset"`, "integer", "string"}},
		{"bool field", Edit{}, json.RawMessage(`{"path":"a.txt","old_string":"x","new_string":"y","replace_all":"yes"}`), []string{`"replace_all"`, "boolean"}},
		{"not an object", Bash{}, json.RawMessage(`[1,2]`), []string{"JSON object"}},
		{"not json", Write{}, json.RawMessage(`{"path":`), []string{"not valid JSON"}},
		{"missing required", Grep{}, json.RawMessage(`{}`), []string{`"pattern"`, "missing"}},
		{"null args", Read{}, json.RawMessage(`null`), []string{`"path"`}},
		{"missing content", Write{}, json.RawMessage(`{"path":"b.txt"}`), []string{`"content"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireError(t, run(t, c.tool, callIn(t, dir, c.args)), c.want...)
		})
	}
}

func TestDecodeArgsLenient(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "a.txt", "hello\n")
	t.Run("double encoded", func(t *testing.T) {
		res := run(t, Read{}, callIn(t, dir, json.RawMessage(`"{\"path\":\"a.txt\"}"`)))
		requireOK(t, res)
		requireEqual(t, res.Output, "hello")
	})
	t.Run("file_path synonym", func(t *testing.T) {
		res := run(t, Read{}, callIn(t, dir, map[string]any{"file_path": "a.txt"}))
		requireOK(t, res)
		requireEqual(t, res.Output, "hello")
	})
}

func TestMissingCwdIsGoError(t *testing.T) {
	for _, tool := range Builtins() {
		_, err := tool.Run(t.Context(), Call{Args: json.RawMessage(`{}`)}, nil)
		if err == nil {
			t.Errorf("%s: expected an error for a call without cwd", tool.Name())
		}
	}
}
