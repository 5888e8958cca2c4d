package rest

import (
	"encoding/json"
	"fmt"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/workdir"
)

// A bundle is untrusted data: whoever wrote it chose its session.created
// and its log. What an import would otherwise take from it that starts a
// program, widens what the agent may do unasked, or points the session at
// the filesystem is the importer's to decide; sanitize makes it so, and
// session.SealImport (through sessions.Client.Import) closes what the log
// left running.

// approvalRank orders the approval modes from the least permissive; a mode
// not listed ranks above them all.
var approvalRank = map[string]int{event.ApprovalDefault: 0, event.ApprovalAutoEdit: 1, event.ApprovalYolo: 2}

func rankOf(mode string) int {
	if r, ok := approvalRank[mode]; ok {
		return r
	}
	return len(approvalRank)
}

// importPolicy is what the daemon lets an imported session have.
type importPolicy struct {
	approval string // the daemon's default mode: the most an import keeps
	crash    string // the daemon's crash policy; an import may only ask for stop instead
}

func (a *API) importPolicy() importPolicy {
	p := importPolicy{approval: event.ApprovalDefault, crash: event.CrashResume}
	if m := a.cfg.Settings.ApprovalMode; m != nil && *m != "" {
		p.approval = *m
	}
	if c := a.cfg.Settings.CrashPolicy; c != nil && *c != "" {
		p.crash = *c
	}
	return p
}

// settings clamps a bundle's settings (its session.created's or a
// session.settings_changed's) to the policy, noting in san what it
// changed; false when it changed nothing.
func (p importPolicy) settings(s *event.Settings, san *event.ImportSanitized) bool {
	changed := false
	if m := s.ApprovalMode; m != nil && *m != "" && rankOf(*m) > rankOf(p.approval) {
		san.ApprovalMode = *m
		s.ApprovalMode, changed = new(p.approval), true
	}
	if c := s.CrashPolicy; c != nil && *c != "" && *c != event.CrashStop && *c != p.crash {
		san.CrashPolicy = *c
		s.CrashPolicy, changed = new(p.crash), true
	}
	if len(s.AgentArgs) > 0 {
		// Arguments to a program this daemon starts are the importer's to
		// give, as its MCP servers are.
		san.AgentArgs = append(san.AgentArgs, s.AgentArgs...)
		s.AgentArgs, changed = nil, true
	}
	if s.UpstreamSessionID != nil {
		// The exporter's agent's session: here the id could name another
		// session's, whose conversation the agent would load.
		s.UpstreamSessionID, changed = nil, true
	}
	return changed
}

// sanitize makes a bundle's session.created the importer's: no MCP
// server of the bundle's, its settings clamped, its additional
// directories kept only where they are directories here. The caller
// decides the cwd (workdir.Untrusted, or the request's).
func (p importPolicy) sanitize(c *event.CreatedPayload) *event.ImportSanitized {
	san := &event.ImportSanitized{}
	san.MCPServers = serverNames(c.MCPServers)
	c.MCPServers = nil
	p.settings(&c.Settings, san)
	var dirs []string
	for _, d := range c.AdditionalDirs {
		if clean, err := workdir.Untrusted("additionalDirectories", d); err == nil {
			dirs = append(dirs, clean)
		} else {
			san.AdditionalDirs = append(san.AdditionalDirs, d)
		}
	}
	c.AdditionalDirs = dirs
	return san
}

// allowAlways is the permission option whose choice the session folds
// into "never ask again for this category" (actors/sessions/internal/session's runTracker).
const allowAlways = "allow_always"

// event clamps what a bundle's event would grant here: the settings a
// session.settings_changed sets, and an "always allow" decision, taken as
// allow once (someone elsewhere allowed a category of calls for their
// session, not for this daemon's). Other events pass as they are.
func (p importPolicy) event(kind event.Kind, payload json.RawMessage, san *event.ImportSanitized) (json.RawMessage, error) {
	switch kind {
	case event.SessionSettingsChanged:
		var s event.Settings
		if err := json.Unmarshal(payload, &s); err != nil {
			return nil, err
		}
		if !p.settings(&s, san) {
			return payload, nil
		}
		return json.Marshal(s)
	case event.ToolPermissionResolved:
		var r event.PermissionResolvedPayload
		if err := json.Unmarshal(payload, &r); err != nil {
			return nil, err
		}
		if r.OptionID != allowAlways {
			return payload, nil
		}
		r.OptionID = "allow_once"
		san.AllowAlways++
		return json.Marshal(r)
	}
	return payload, nil
}

// serverNames names the MCP servers of a session.created's mcp_servers,
// however they are shaped: what an import leaves out, for the record.
func serverNames(servers json.RawMessage) []string {
	if len(servers) == 0 || string(servers) == "null" {
		return nil
	}
	var entries []json.RawMessage
	if json.Unmarshal(servers, &entries) != nil {
		return []string{"(unreadable mcp_servers)"}
	}
	out := make([]string, 0, len(entries))
	for i, e := range entries {
		var n struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(e, &n) != nil || n.Name == "" {
			n.Name = fmt.Sprintf("(unnamed #%d)", i)
		}
		out = append(out, n.Name)
	}
	return out
}

// isEmpty reports whether a sanitized record says nothing.
func isEmpty(s *event.ImportSanitized) bool {
	return s == nil || (len(s.MCPServers) == 0 && s.ApprovalMode == "" && s.CrashPolicy == "" && len(s.AdditionalDirs) == 0 && s.AllowAlways == 0 && len(s.AgentArgs) == 0)
}
