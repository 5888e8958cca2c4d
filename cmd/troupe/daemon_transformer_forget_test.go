package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A bundle imported with replace onto a chained session's id starts with
// no chain, in the daemon's memory as in its log: its prompts are no
// longer rewritten by the transformer the replaced session had. A deleted
// session's chain is forgotten the same way.
func TestDaemonTransformerChainForgottenOnReplace(t *testing.T) {
	home, log := transformerHome(t, map[string]string{"PLUGIN_MODE": "rewrite", "PLUGIN_INTERCEPTS": "request:session/prompt"})
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &fine})
	d := startDaemon(t, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny")
	d.waitRunning(t, "transformers", "tr", log, 0)
	c := d.dialACP(t, "editor")
	var created struct {
		SessionID string `json:"sessionId"`
	}
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"transformers": []string{"tr"}}}})).Decode(t, &created)
	sid := created.SessionID
	if got := rewrittenTo(t, c, srv, sid, "before"); !strings.Contains(got, "rewritten: before") {
		t.Fatalf("the chained session's prompt was not rewritten: %s", got)
	}
	res := d.do(t, "GET", "/v1/sessions/"+sid+"/export", nil)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	raw, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	c.WaitAnswer(c.Call("session/detach", map[string]any{"sessionId": sid}))

	var imp struct {
		SessionID string `json:"sessionId"`
		Replaced  bool   `json:"replaced"`
	}
	d.call(t, "POST", "/v1/sessions/import", `{"replace":true,"replaceSessionId":"`+sid+`","bundle":`+string(raw)+`}`, http.StatusCreated, &imp)
	if imp.SessionID != sid || !imp.Replaced {
		t.Fatalf("import: %+v", imp)
	}
	c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": sid}))
	if got := rewrittenTo(t, c, srv, sid, "after"); strings.Contains(got, "rewritten:") {
		t.Fatalf("the imported session's prompt went through the replaced session's chain: %s", got)
	}

}
