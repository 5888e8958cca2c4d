package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// cutThenWhole is a reply cut mid-stream (the connection drops) and the
// whole one the retry gets.
func cutThenWhole() []llmserver.Reply {
	return []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Half an ans"), llmserver.Disconnect()),
		llmserver.Steps(llmserver.Text("The whole answer.")),
	}
}

// A step retried after its stream was cut: session prompt on a terminal
// marks the abandoned text as cut off and discarded before the retry's
// reply; an ACP client (REST history is what one attached from the start
// saw) gets a troupe_retry notice naming the message; the transcript
// holds only the final answer.
func TestRetriedStepTerminalAndACP(t *testing.T) {
	env, model := llmEnv(t, cutThenWhole()...)
	d := startDaemon(t, t.TempDir(), env, model...)
	sid := d.create(t, t.TempDir())

	v := startView(t, d, true, []string{"NO_COLOR=1"}, "prompt", sid, "answer me")
	testkit.Equal(t, v.exit(t), 0)
	compareGolden(t, "prompt_retry_tty.golden", normaliseView(v.out.String(), nil))

	res := d.do(t, http.MethodGet, "/v1/sessions/"+sid+"/history", nil)
	body, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	if !strings.Contains(string(body), `"sessionUpdate":"troupe_retry","phase":"started"`) {
		t.Fatalf("no retry notice in the history:\n%s", body)
	}
	// The retry's text is a message of its own there too.
	if !regexp.MustCompile(`"text":"The whole answer\."[^\n]*"acpMessageId":"[^"]+-attempt-2"`).Match(body) {
		t.Fatalf("the retry's text is not a message of its own in the history:\n%s", body)
	}
	env = append(env, "TROUPE_HOME="+d.home)
	tr := cli(t, env, "", "session", "transcript", sid).ok(t, "transcript")
	if strings.Contains(tr, "Half an ans") || !strings.Contains(tr, "The whole answer.") {
		t.Fatalf("transcript:\n%s", tr)
	}
}

// In --mode rpc a retried step is shown as pi shows one: the cut message
// ends (message_end, stopReason error, with the error), auto_retry_start,
// a new message_start, the whole reply, auto_retry_end; get_messages
// holds only the whole reply.
func TestRetriedStepRPC(t *testing.T) {
	env, model := llmEnv(t, cutThenWhole()...)
	p := testkit.Start(t, testkit.BuildTroupe(t), env, append([]string{"--mode", "rpc", "--home", t.TempDir(), "--cwd", t.TempDir()}, model...)...)
	_, err := io.WriteString(p.Stdin, `{"id":"1","type":"prompt","message":"answer me"}`+"\n")
	testkit.NoError(t, err)
	var seen []string
	for {
		line, ok := p.ReadLine(30 * time.Second)
		if !ok {
			t.Fatalf("the run did not end: %s", strings.Join(seen, "\n"))
		}
		var m struct {
			Type    string `json:"type"`
			Message struct {
				Role       string          `json:"role"`
				StopReason string          `json:"stopReason"`
				Error      string          `json:"errorMessage"`
				Content    json.RawMessage `json:"content"`
			} `json:"message"`
			Success *bool `json:"success"`
		}
		testkit.NoError(t, json.Unmarshal([]byte(line), &m))
		switch m.Type {
		case "message_start", "message_end":
			if m.Message.Role != "assistant" {
				continue
			}
			s := m.Type
			if m.Type == "message_end" {
				var blocks []struct {
					Text string `json:"text"`
				}
				testkit.NoError(t, json.Unmarshal(m.Message.Content, &blocks))
				var text strings.Builder
				for _, c := range blocks {
					text.WriteString(c.Text)
				}
				s += " " + m.Message.StopReason + " " + text.String()
				if m.Message.Error != "" {
					s += " (error)"
				}
			}
			seen = append(seen, s)
		case "auto_retry_start", "agent_end":
			seen = append(seen, m.Type)
		case "auto_retry_end":
			seen = append(seen, m.Type+" "+map[bool]string{true: "success", false: "failure"}[m.Success != nil && *m.Success])
		}
		if m.Type == "agent_end" {
			break
		}
	}
	testkit.DeepEqual(t, seen, []string{
		"message_start", "message_end error Half an ans (error)", "auto_retry_start",
		"message_start", "auto_retry_end success", "message_end stop The whole answer.", "agent_end",
	})
	_, err = io.WriteString(p.Stdin, `{"id":"2","type":"get_messages"}`+"\n")
	testkit.NoError(t, err)
	for {
		line, ok := p.ReadLine(30 * time.Second)
		if !ok {
			t.Fatal("no answer to get_messages")
		}
		if strings.Contains(line, `"command":"get_messages"`) {
			if strings.Contains(line, "Half an ans") || !strings.Contains(line, "The whole answer.") {
				t.Fatalf("get_messages: %s", line)
			}
			break
		}
	}
	testkit.NoError(t, p.Stdin.Close())
	testkit.Equal(t, p.Wait(t, 20*time.Second), 0)
}

// troupe run, drawing with the same renderer, marks the cut text too.
func TestRetriedStepRun(t *testing.T) {
	env, model := llmEnv(t, cutThenWhole()...)
	lines, stderr, code := runLines(t, testkit.BuildTroupe(t), append(env, "TROUPE_HOME="+t.TempDir()),
		append(append([]string{"run"}, model...), "--cwd", t.TempDir(), "answer me")...)
	testkit.Equal(t, code, 0)
	testkit.DeepEqual(t, lines[1:], []string{"Half an ans", "", "The whole answer.", "[end_turn · 0 in / 0 out tokens]"})
	if !strings.Contains(stderr, "↻ the reply above was cut off and is discarded") {
		t.Fatalf("stderr does not mark the cut text: %s", stderr)
	}
}

// An ACP client is told of the retry (troupe_retry) and is sent the retry's text as a message of its own: nothing it
// has shown needs taking back, and the two are never joined.
func TestRetriedStepACP(t *testing.T) {
	env, model := llmEnv(t, cutThenWhole()...)
	d := startDaemon(t, t.TempDir(), env, model...)
	sid := d.create(t, t.TempDir())
	c := d.dialACP(t, "editor")
	c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	pid := c.Prompt(sid, "answer me")
	var order []string
	ids := map[string]string{} // what was shown -> its acpMessageId
	for _, f := range c.Until(func(f acpclient.Frame) bool { return f.Method == "" && string(f.ID) == strconv.Itoa(pid) }) {
		var p struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Text string `json:"text"`
				} `json:"content"`
				Meta struct {
					Hydra struct {
						ACPMessageID string `json:"acpMessageId"`
					} `json:"hydra-acp"`
				} `json:"_meta"`
			} `json:"update"`
		}
		if f.Method != "session/update" || json.Unmarshal(f.Params, &p) != nil {
			continue
		}
		u := p.Update
		switch u.SessionUpdate {
		case "agent_message_chunk":
			ids[u.Content.Text] = u.Meta.Hydra.ACPMessageID
			order = append(order, u.Content.Text)
		case "troupe_retry":
			order = append(order, "retry")
		}
	}
	testkit.DeepEqual(t, order, []string{"Half an ans", "retry", "The whole answer.", "retry"}) // started, recovered
	cut, retried := ids["Half an ans"], ids["The whole answer."]
	if cut == "" || retried == "" || retried == cut {
		t.Fatalf("message ids: %v", ids)
	}
}
