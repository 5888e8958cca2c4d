package main

import (
	"net/http"
	"slices"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// A flag a transformer or an extension raises is keyed by its process
// name (from its per-process token), whatever name its initialize gives,
// "daemon" included; an ordinary client's by its initialize name.
func TestDaemonAttentionSourceIsProcessName(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	trLog := d.registerPlugin(t, "transformers", "tr", nil)
	tr := d.waitRunning(t, "transformers", "tr", trLog, 0)
	extLog := d.registerPlugin(t, "extensions", "ext", nil)
	ext := d.waitRunning(t, "extensions", "ext", extLog, 0)
	sid := d.create(t, t.TempDir())

	set := func(c *acpclient.Client) {
		t.Helper()
		var ok struct{ OK bool }
		c.WaitAnswer(c.Call("hydra-acp/attention/set", map[string]any{"sessionId": sid, "reason": "review"})).Decode(t, &ok)
		testkit.Equal(t, ok.OK, true)
	}
	set(d.dialProcess(t, tr.PID, "planner"))
	set(d.dialProcess(t, ext.PID, "daemon"))
	set(d.dialACP(t, "editor"))

	var got attentionFlags
	d.call(t, "GET", "/v1/sessions/"+sid+"/attention", nil, http.StatusOK, &got)
	var sources []string
	for _, f := range got.Flags {
		sources = append(sources, f.Source)
	}
	slices.Sort(sources)
	testkit.Equal(t, len(sources), 3)
	if !slices.Equal(sources, []string{"editor", "ext", "tr"}) {
		t.Fatalf("flag sources %v, want editor, ext and tr", sources)
	}
}
