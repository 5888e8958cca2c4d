package jsonstream

import (
	"encoding/json"
	"fmt"
	"strings"
)

// toolArgs returns a call's arguments as a JSON value for tool.args; the
// model's text is kept as a string when it is not JSON, since a client
// must still see what it is asked to approve.
func toolArgs(raw string) any {
	var v any
	if json.Unmarshal([]byte(raw), &v) == nil && v != nil {
		return v
	}
	if strings.TrimSpace(raw) == "" {
		return map[string]any{}
	}
	return raw
}

// describe makes tool.description, the one-line summary a host shows next
// to its approve and deny buttons.
func describe(name string, args any) string {
	m, _ := args.(map[string]any)
	pick := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	switch name {
	case "bash":
		if c := pick("command"); c != "" {
			return "Run " + oneLine(c)
		}
	case "write":
		if p := pick("path", "file_path"); p != "" {
			return "Write to " + p
		}
	case "edit":
		if p := pick("path", "file_path"); p != "" {
			return "Edit " + p
		}
	}
	if p := pick("path", "file_path", "pattern", "command"); p != "" {
		return fmt.Sprintf("%s %s", name, oneLine(p))
	}
	return "Call " + name
}

func oneLine(s string) string {
	s, _, cut := strings.Cut(s, "\n")
	const max = 120
	if len(s) > max {
		s, cut = s[:max], true
	}
	if cut {
		s += "…"
	}
	return s
}
