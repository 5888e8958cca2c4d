package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// troupe's own actors log through the actor system's logger, like
// protoactor, yet their records are not tagged lib=protoactor. A crash
// left in the log makes the session log "run interrupted by a restart".
func TestOwnLogsAreNotTaggedAsTheLibrary(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	acks, code := appendAll(t, bin, home, "cut", `{"kind":"session.settings_changed","payload":{"crash_policy":"stop"}}`+"\n"+
		`{"kind":"run.started","payload":{"run_id":"r1"}}`+"\n")
	testkit.Equal(t, code, 0)
	testkit.Equal(t, len(acks), 2)

	p := testkit.Start(t, bin, []string{"OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_API_KEY="},
		"run", "--home", home, "--session", "cut", "--provider", "openai", "--model", "tiny", "--log-format", "json")
	p.Wait(t, 30*time.Second)
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(p.Stderr()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["msg"] != "run interrupted by a restart" {
			continue
		}
		found = true
		if _, tagged := rec["lib"]; tagged || rec["session"] != "cut" {
			t.Fatalf("record: %s", line)
		}
	}
	if !found {
		t.Fatalf("no interrupted-run record in stderr:\n%s", p.Stderr())
	}
}
