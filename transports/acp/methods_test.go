package acp

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// wantMethods is the method set the connection serves, by who may call
// it: the ACP spec's agent methods and hydra's client extensions (anyone),
// the hydra transformer protocol (transformers), the process extensions
// (extensions and transformers).
var wantMethods = map[string]role{
	"initialize": anyone, "authenticate": anyone,
	"session/new": anyone, "session/load": anyone, "session/resume": anyone, "session/attach": anyone,
	"session/detach": anyone, "session/close": anyone, "session/delete": anyone, "session/list": anyone,
	"session/prompt": anyone, "session/cancel": anyone,
	"session/set_mode": anyone, "session/set_model": anyone, "session/set_config_option": anyone,
	"hydra-acp/prompt/cancel": anyone, "hydra-acp/prompt/update": anyone, "hydra-acp/prompt/amend": anyone,
	"hydra-acp/agents/list": anyone, "hydra-acp/attention/set": anyone, "hydra-acp/attention/clear": anyone,
	"hydra-acp/session/fork": anyone, "session/fork": anyone,
	"hydra-acp/session/force_cancel": anyone, "hydra-acp/session/load": anyone,

	"hydra-acp/transformer/initialize": transformers, "hydra-acp/transformer/attach": transformers,
	"hydra-acp/message/emit": transformers, "hydra-acp/connection/keep_alive": transformers,
	"hydra-acp/session/request_permission": transformers,
	"hydra-acp/child_session/spawn":        transformers, "hydra-acp/child_session/await": transformers,
	"hydra-acp/child_session/close": transformers,

	"hydra-acp/mcp_tools/register": processes, "hydra-acp/commands/register": processes,
}

// The table is complete: every method has a handler and callers, and the
// set (with who may call each) is the protocol's.
func TestMethodTableIsTheProtocol(t *testing.T) {
	for name, m := range methods {
		if m.serve == nil {
			t.Errorf("%s has no handler", name)
		}
		if m.callers == 0 || m.callers&^anyone != 0 {
			t.Errorf("%s: callers %b is not a set of roles", name, m.callers)
		}
		if (m.mutates || m.chained) && m.callers != anyone {
			t.Errorf("%s: mutates or chained concern a client's session methods; callers %b", name, m.callers)
		}
		want, ok := wantMethods[name]
		if !ok {
			t.Errorf("%s is served but not in the protocol's method set", name)
			continue
		}
		if m.callers != want {
			t.Errorf("%s: callers %b, want %b", name, m.callers, want)
		}
	}
	for name := range wantMethods {
		if _, ok := methods[name]; !ok {
			t.Errorf("%s is in the protocol but not served", name)
		}
	}
	// The ones a session's chain sees at dispatch; prompt and cancel have
	// their own paths.
	var chained []string
	for name, m := range methods {
		if m.chained {
			chained = append(chained, name)
		}
	}
	slices.Sort(chained)
	if want := []string{"session/load", "session/set_mode"}; !slices.Equal(chained, want) {
		t.Errorf("chained methods %v, want %v", chained, want)
	}
}

// Every request the golden transcripts send is in the table.
func TestTranscriptMethodsAreServed(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	sent := regexp.MustCompile(`(?m)^send '.*?"method":"([^"]+)"`)
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range sent.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]] = true
		}
	}
	if len(seen) == 0 {
		t.Fatal("the transcripts send no request: the pattern is wrong")
	}
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		if _, ok := methods[name]; !ok {
			t.Errorf("the transcripts send %s, which the table does not serve", name)
		}
	}
}

// Dispatch follows the table: a method a role may not call is not found
// for it (as an unknown one is), with or without initialize; a mutating
// one is refused on a read-only attachment. (One a role may call is
// served, which needs the actor system: the daemon tests cover those.)
func TestDispatchFollowsTheTable(t *testing.T) {
	peers := map[role]pipeline.Peer{
		roleClient:      {},
		roleExtension:   {Kind: pipeline.KindExtension, Name: "ext"},
		roleTransformer: {Kind: pipeline.KindTransformer, Name: "tr"},
	}
	names := append(slices.Sorted(maps.Keys(methods)), "no/such_method")
	for _, name := range names {
		if name == "initialize" {
			continue // served before any check but the caller's
		}
		for r, peer := range peers {
			if methods[name].callers&r != 0 {
				continue
			}
			c := &conn{peer: peer, out: &outbox{}}
			c.dispatch(nil, jsonrpc.Message{ID: jsonrpc.IntID(1), Method: name, Params: []byte(`{"sessionId":"s1"}`)})
			if got := answeredCode(t, c); got != jsonrpc.CodeMethodNotFound {
				t.Errorf("%s from %s: code %d, want %d", name, peer.Kind, got, jsonrpc.CodeMethodNotFound)
			}
		}
		if !methods[name].mutates {
			continue
		}
		c := &conn{out: &outbox{}, att: map[string]*attachment{"s1": {id: "s1", readonly: true}}}
		c.dispatch(nil, jsonrpc.Message{ID: jsonrpc.IntID(1), Method: name, Params: []byte(`{"sessionId":"s1"}`)})
		if got := answeredCode(t, c); got != CodePermissionDenied {
			t.Errorf("%s on a read-only attachment: code %d, want %d", name, got, CodePermissionDenied)
		}
	}
}

// answeredCode is the error code of the one answer c queued.
func answeredCode(t *testing.T, c *conn) int {
	t.Helper()
	items := c.out.take(nil)
	if len(items) != 1 {
		t.Fatalf("%d messages queued, want 1", len(items))
	}
	a, ok := items[0].v.(jsonrpc.ErrorAnswer)
	if !ok {
		t.Fatalf("answered %T, want an error", items[0].v)
	}
	return a.Error.Code
}
