package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A client of one member, attached to a session hosted on another, keeps
// following it when the host is SIGKILLed mid-run: the session is taken
// over from the shared store, its run resumed, and the client's
// attachment subscribes again from the next update by itself, so the
// client sees the run to its end and the prompt answered, with no update
// twice, without doing anything.
func TestDaemonClusterClientFollowsAMovedSession(t *testing.T) {
	cl := startPGCluster(t, 2, "move", llmserver.Steps(
		llmserver.Text("before the loss "), llmserver.Delay(2*time.Second), llmserver.Text("after the loss")), nil, "--lease-ttl", "3s")
	members := cl.members
	c := members[0].dialACP(t, "editor")
	other := cl.self(t, 1)
	var id string
	for range 64 {
		id, _ = c.NewSession(t.TempDir())
		if hostOf(t, members[0], other) > 0 {
			break
		}
		id = ""
	}
	if id == "" {
		t.Fatal("no session of 64 was placed on the other member")
	}

	req := c.Prompt(id, "go")
	frames := c.Until(func(f acpclient.Frame) bool { return strings.Contains(f.Raw, "before the loss") })
	members[1].proc.Signal(syscall.SIGKILL)
	frames = append(frames, c.UntilWithin(60*time.Second, func(f acpclient.Frame) bool { return f.Answers(req) })...)
	if f := frames[len(frames)-1]; f.Error != nil {
		t.Fatalf("the prompt's answer: %s", f.Raw)
	}
	var text strings.Builder
	seen := map[string]bool{}
	for _, f := range frames {
		if !strings.Contains(f.Raw, `"agent_message_chunk"`) {
			continue
		}
		if seen[f.Raw] {
			t.Fatalf("an update seen twice: %s", f.Raw)
		}
		seen[f.Raw] = true
		text.WriteString(f.Raw)
	}
	if !strings.Contains(text.String(), "after the loss") {
		t.Fatalf("the client saw no more of the run after its host was lost:\n%s", text.String())
	}
}
