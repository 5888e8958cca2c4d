package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// The spec client's scenario, the same on both transports.

func initParams(version string) map[string]any {
	return map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "spec-client", "version": "1"}}
}

// initialize runs the handshake asking for version and returns the
// version the server answered.
func initialize(t testing.TB, p mcpPeer, version string) string {
	t.Helper()
	res, _ := p.call(t, 1, "initialize", initParams(version))
	if res.Error != nil {
		t.Fatalf("initialize %s: %s", version, res.Error.Message)
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools   *struct{} `json:"tools"`
			Logging *struct{} `json:"logging"`
		} `json:"capabilities"`
		ServerInfo struct{ Name, Version string } `json:"serverInfo"`
	}
	testkit.NoError(t, json.Unmarshal(res.Result, &r))
	if r.Capabilities.Tools == nil || r.Capabilities.Logging == nil || r.ServerInfo.Name != "troupe" {
		t.Fatalf("initialize: %s", res.Result)
	}
	p.notify(t, "notifications/initialized", nil)
	return r.ProtocolVersion
}

// negotiated is what the spec has the server answer to version: the same
// when it supports it, else its newest.
var negotiated = map[string]string{
	"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26",
	"2024-11-05": "2025-11-25", "1999-01-01": "2025-11-25",
}

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func callTool(t testing.TB, p mcpPeer, id int, name string, args any, meta map[string]any) (toolResult, []mcpMsg) {
	t.Helper()
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	res, notes := p.call(t, id, "tools/call", params)
	if res.Error != nil {
		t.Fatalf("%s: %s", name, res.Error.Message)
	}
	var r toolResult
	testkit.NoError(t, json.Unmarshal(res.Result, &r))
	if r.IsError || len(r.Content) == 0 || r.Content[0].Type != "text" {
		t.Fatalf("%s: %s", name, res.Result)
	}
	return r, notes
}

// exerciseMCP is the spec client's scenario after the handshake: ping,
// logging/setLevel, tools/list, a session created, prompted with a
// progress token (the reply the LLM streams is want), listed and read
// back, a bridge tool, and an unknown tool refused.
func exerciseMCP(t testing.TB, p mcpPeer, cwd, want string) {
	if res, _ := p.call(t, 2, "ping", nil); res.Error != nil || string(res.Result) != "{}" {
		t.Fatalf("ping: %+v %s", res.Error, res.Result)
	}
	if res, _ := p.call(t, 3, "logging/setLevel", map[string]any{"level": "info"}); res.Error != nil || string(res.Result) != "{}" {
		t.Fatalf("logging/setLevel: %+v %s", res.Error, res.Result)
	}
	res, _ := p.call(t, 4, "tools/list", nil)
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema struct {
				Type string `json:"type"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	testkit.NoError(t, json.Unmarshal(res.Result, &list))
	names := map[string]bool{}
	for _, tool := range list.Tools {
		if tool.Description == "" || tool.InputSchema.Type != "object" {
			t.Errorf("tool %s: description %q, input schema type %q", tool.Name, tool.Description, tool.InputSchema.Type)
		}
		names[tool.Name] = true
	}
	for _, n := range []string{"session.list", "session.create", "session.prompt", "session.transcript", "config.list", "model.add", "server.start", "server.stop"} {
		if !names[n] {
			t.Errorf("tools/list has no %s", n)
		}
	}

	created, _ := callTool(t, p, 5, "session.create", map[string]any{"cwd": cwd, "title": "spec"}, nil)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	testkit.NoError(t, json.Unmarshal(created.StructuredContent, &sess))

	answer, notes := callTool(t, p, 6, "session.prompt", map[string]any{"session_id": sess.SessionID, "text": "hi"},
		map[string]any{"progressToken": "tok-6"})
	if answer.Content[0].Text != want {
		t.Errorf("prompt answered %q, want %q", answer.Content[0].Text, want)
	}
	var streamed strings.Builder
	last := 0.0
	for _, n := range notes {
		if n.Method != "notifications/progress" {
			continue
		}
		var pr struct {
			ProgressToken string  `json:"progressToken"`
			Progress      float64 `json:"progress"`
			Message       string  `json:"message"`
		}
		testkit.NoError(t, json.Unmarshal(n.Params, &pr))
		if pr.ProgressToken != "tok-6" || pr.Progress <= last {
			t.Errorf("progress %s after %v: want token tok-6 and a growing progress", n.Params, last)
		}
		last = pr.Progress
		streamed.WriteString(pr.Message)
	}
	if streamed.String() != want {
		t.Errorf("progress messages streamed %q, want %q", streamed.String(), want)
	}

	listed, _ := callTool(t, p, 7, "session.list", map[string]any{}, nil)
	if !strings.Contains(string(listed.StructuredContent), sess.SessionID) {
		t.Errorf("session.list: %s", listed.StructuredContent)
	}
	tr, _ := callTool(t, p, 8, "session.transcript", map[string]any{"session_id": sess.SessionID}, nil)
	if !strings.Contains(tr.Content[0].Text, "## User\n\nhi") || !strings.Contains(tr.Content[0].Text, want) {
		t.Errorf("transcript: %s", tr.Content[0].Text)
	}

	// A bridge tool answers as troupe stdio's does: its JSON as text.
	if cfg, _ := callTool(t, p, 10, "config.list", map[string]any{}, nil); cfg.Content[0].Text != `{"configs":[]}` {
		t.Errorf("config.list: %s", cfg.Content[0].Text)
	}

	res, _ = p.call(t, 9, "tools/call", map[string]any{"name": "no.such", "arguments": map[string]any{}})
	if res.Error == nil || res.Error.Code != -32602 || string(res.ID) != "9" {
		t.Errorf("unknown tool: %+v id %s", res.Error, res.ID)
	}
}
