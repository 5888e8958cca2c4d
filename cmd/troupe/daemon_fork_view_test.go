package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// shownText is what a replay shows of the conversation: each chunk's kind
// and text, one per line, in order, consecutive chunks of one kind joined.
func shownText(t *testing.T, fs []acpclient.Frame) string {
	t.Helper()
	var lines []string
	last := ""
	for _, f := range fs {
		if f.Method != "session/update" {
			continue
		}
		u := f.Update(t).Update
		switch u.SessionUpdate {
		case "user_message_chunk", "agent_message_chunk":
			if u.SessionUpdate == last {
				lines[len(lines)-1] += u.Content.Text
				continue
			}
			lines = append(lines, u.SessionUpdate+": "+u.Content.Text)
		case "turn_complete":
			lines = append(lines, "turn_complete")
		default:
			continue
		}
		last = u.SessionUpdate
	}
	return strings.Join(lines, "\n")
}

// A fork shows a client that attaches its parent's conversation up to the
// fork point, then its own (Hydra's forked TUI view is not empty); a
// client resuming after an update it saw gets only what followed. The
// fork request's title names the fork.
func TestDaemonForkReplaysItsParent(t *testing.T) {
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &fine})
	d := startDaemon(t, t.TempDir(), []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny")
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	c.WaitAnswer(c.Prompt(sid, "hello parent"))

	var fork struct{ SessionID string }
	d.call(t, "POST", "/v1/sessions/"+sid+"/fork", map[string]string{"title": "branch"}, http.StatusCreated, &fork)
	var entry struct{ Title string }
	d.call(t, "GET", "/v1/sessions/"+fork.SessionID, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.Title, "branch")
	// After the fork point: not the fork's.
	c.WaitAnswer(c.Prompt(sid, "parent only"))

	inherited := "user_message_chunk: hello parent\nagent_message_chunk: fine\nturn_complete"
	first := d.dialACP(t, "tui")
	replayed, res := first.Attach(map[string]any{"sessionId": fork.SessionID, "historyPolicy": "full"})
	testkit.Equal(t, shownText(t, replayed), inherited)
	testkit.Equal(t, res.Replayed, len(replayed))

	if f := first.WaitAnswer(first.Prompt(fork.SessionID, "in the fork")); f.Error != nil {
		t.Fatalf("prompt in the fork: %s", f.Raw)
	}
	again := d.dialACP(t, "tui")
	replayed, _ = again.Attach(map[string]any{"sessionId": fork.SessionID, "historyPolicy": "full"})
	testkit.Equal(t, shownText(t, replayed), inherited+"\nuser_message_chunk: in the fork\nagent_message_chunk: fine\nturn_complete")

	// Resuming after the last inherited update replays the fork's own
	// turn alone.
	var lastInherited string
	for _, f := range replayed {
		if f.Method == "session/update" && f.Update(t).Update.SessionUpdate == "turn_complete" {
			lastInherited = acpclient.Anchor(t, f)
			break
		}
	}
	resumed := d.dialACP(t, "tui")
	replayed, _ = resumed.Attach(map[string]any{"sessionId": fork.SessionID, "historyPolicy": "after_message", "afterMessageId": lastInherited})
	testkit.Equal(t, shownText(t, replayed), "user_message_chunk: in the fork\nagent_message_chunk: fine\nturn_complete")
}
