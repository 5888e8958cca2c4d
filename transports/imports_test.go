// Package transports_test keeps the transports on the session facade: a
// transport may import the facade (actors/sessions), the event schema
// (persistence/event), the contract with its supervisor
// (actors/transports), its own codec and the other transports' shared
// packages, never the engine's insides or the store. The hugind bridge
// also reaches the llama-server supervisor, configs, models and agents;
// the daemon's assembly (transports/daemon) composes the tree and is
// exempt.
package transports_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

const module = "github.com/troupehq/troupe/"

// allowed are the troupe packages a transport may import, besides its
// siblings under transports/.
var allowed = map[string]string{
	"actors/sessions":   "the session facade",
	"persistence/event": "the event schema and its vocabulary",
	"actors/actorlog":   "every actor's logger and its report of unhandled messages",
	"actors/transports": "the transports supervisor's contract: Done, Terminate",
	// User messages and tool results are shown as the model is sent them.
	"runtime/conversation": "the model's view of user messages and tool results",
	"runtime/tooltext":     "tool calls a message wrote as text, reparsed as the run parsed them (projection.MessageCalls)",
	"runtime/jsontext":     "JSON strings written by hand on the hot paths, as encoding/json writes them",
	// Every door that takes a directory for a session checks it alike.
	"actors/spawner":     "the guardian's spawners: an actor a transport starts beyond its own children (a chained session's link)",
	"runtime/compaction": "when a session should compact, as REST's compact/status reports it",
	"runtime/workdir":    "the one check of a directory a client or a bundle names for a session",
	// pi's /skill:NAME reads a skill as the engine's catalog does.
	"runtime/skills": "skill files expanded into an RPC message (transports/rpc, /skill:NAME)",
	// The hugind bridge manages llama-servers, configs and models, not
	// sessions: these are what its methods are about.
	"actors/servers":      "the llama-server supervisor's messages (transports/hugind)",
	"runtime/llamaconfig": "llama-server configs (transports/hugind)",
	"runtime/modelstore":  "model files (transports/hugind)",
	// Its agent.* methods run scripted agents, which are not sessions.
	"actors/agent":     "scripted agent runs (transports/hugind)",
	"runtime/agentpkg": "agent packages (transports/hugind)",
	// The daemon's REST API manages extensions and transformers, not
	// sessions, through their supervisors' messages.
	"actors/plugins": "the extensions' and transformers' supervisors (transports/rest)",
	// Hydra's agent routes and hydra-acp/agents/list list and install the
	// external agents a home configures; the catalogue is what they are
	// about (sessions reach an agent through the facade, never this).
	"runtime/agentcatalog": "the agent catalogue's listing, installs and registry (transports/rest, transports/acp)",
	// The metrics are counters a transport moves (its WebSocket clients).
	"runtime/metrics": "the Prometheus collectors a transport reports to (transports/acp: WebSocket clients)",
}

// composition is the one package under transports/ that builds the tree
// rather than speaking to it: the daemon's assembly boots the runtime, the
// engine and the supervisors it serves (actors/layers_test.go puts it
// beside the guardian), so the facade rule is not its.
const composition = module + "transports/daemon"

func TestTransportsImportOnlyTheFacade(t *testing.T) {
	pkgs := testkit.GoList(t, module+"transports/...")
	for _, pkg := range pkgs {
		if pkg.ImportPath == composition {
			continue
		}
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			rel := strings.TrimPrefix(imp, module)
			if _, ok := allowed[rel]; ok || strings.HasPrefix(rel, "transports/") {
				continue
			}
			t.Errorf("%s imports %s: a transport reaches sessions only through actors/sessions and reads only persistence/event", pkg.ImportPath, imp)
		}
	}
	if len(pkgs) < 3 {
		t.Fatalf("go list found %d transport packages, want at least rpc, jsonstream and stdio", len(pkgs))
	}
}

// The stdin ring and the agent-facing MCP servers answer HTTP with
// transports/httpjson alone: importing the REST API for its JSON helpers
// linked some twenty troupe packages into each.
func TestSmallHTTPServersLinkNoREST(t *testing.T) {
	for _, path := range []string{"transports/stdinring", "transports/agentmcp"} {
		pkgs := testkit.GoList(t, module+path)
		if len(pkgs) != 1 {
			t.Fatalf("go list %s found %d packages", path, len(pkgs))
		}
		var troupe []string
		for _, dep := range pkgs[0].Deps {
			if rel, ok := strings.CutPrefix(dep, module); ok {
				troupe = append(troupe, rel)
			}
		}
		if !slices.Contains(troupe, "transports/httpjson") {
			t.Errorf("%s links no transports/httpjson: the list is wrong (%v)", path, troupe)
		}
		for _, rel := range troupe {
			if rel == "transports/rest" || strings.HasPrefix(rel, "actors/") {
				t.Errorf("%s links %s (all it links of troupe: %v)", path, rel, troupe)
			}
		}
	}
}
