package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// The live tree of a running daemon — a session in the middle of a run, a
// transformer and the chain link of the session it gates, an ACP
// connection, the llama-servers supervisor — is the tree ARCHITECTURE.md
// draws, and nothing but the guardian sits at protoactor's root. (An agent
// run and a stdio transport: actors.TestLiveTreeIsTheDrawnTree.)
func TestDaemonLiveTreeIsTheDrawnTree(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"command": "sleep 30"})
	g := newGateHome(t, map[string]string{}, nil, llmserver.Steps(llmserver.ToolCall("b1", "bash", string(args))))
	d := g.start(t)
	in, ok := d.proc.(*inProcessDaemon)
	if !ok {
		t.Fatal("the daemon does not run in-process")
	}
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	prompt := c.Prompt(sid, "sleep")
	// auto_edit asks before a command: the run waits on the answer.
	c.Until(func(f acpclient.Frame) bool { return f.Method == "session/request_permission" })

	doc := testkit.ReadDocTree(t, filepath.Join("..", "..", "ARCHITECTURE.md"))
	want := []string{
		"troupe/store-writer", "troupe/servers", "troupe/sessions/<session id>/queue$N", "troupe/sessions/<session id>/run$N",
		"troupe/sessions/<session id>/subscription$N", "troupe/transformers/member$N/process$N", "troupe/chain-links/<session id>",
		"troupe/transports/<transport>/writer$N",
	}
	var live []string
	testkit.Eventually(t, 10*time.Second, "the run and the chain link, live", func() bool {
		live = actors.LiveTree(in.daemon.Load().Runtime().System)
		return slices.Contains(live, "troupe/chain-links/"+sid) && hasPrefixIn(live, "troupe/sessions/"+sid+"/run$")
	})
	testkit.CheckTree(t, doc, live, want...)
	for _, id := range live {
		if id != "troupe" && !strings.HasPrefix(id, "troupe/") {
			t.Errorf("%q is spawned at protoactor's root, beside the guardian", id)
		}
	}
	if t.Failed() {
		t.Logf("live tree:\n%s", strings.Join(live, "\n"))
	}
	c.Call("session/cancel", map[string]any{"sessionId": sid})
	c.Until(func(f acpclient.Frame) bool { return f.Answers(prompt) })
}

func hasPrefixIn(ids []string, prefix string) bool {
	for _, x := range ids {
		if strings.HasPrefix(x, prefix) {
			return true
		}
	}
	return false
}
