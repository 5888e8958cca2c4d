package rpc_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Through the binary, in each --partials mode (and with none, which is
// full): every message_update of a streamed reply carries, as `message`
// and as `partial`, the text of each block so far, that is the
// concatenation of the deltas shown so far (thinking, text, and a tool
// call's arguments, raw in partialArgs and parsed as far as they go in
// arguments); the *_end events and message_end agree with the last
// partial. Skeleton partials carry no text. The long second reply may be
// merged into fewer lines when this reader falls behind; the same must
// hold.
func TestPartialsFollowTheDeltas(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	for _, mode := range []string{"", "full", "skeleton"} {
		name := mode
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
				llmserver.Steps(
					llmserver.Thinking("Checking "), llmserver.Thinking("the file."),
					llmserver.Text("Let me "), llmserver.Text("look "), llmserver.Text("at it."),
					llmserver.Step{ToolCall: &llmserver.NativeCall{ID: "call_1", Name: "read", Chunks: []string{`{"path":`, `"a.t`, `xt"}`}}},
				),
				llmserver.Steps(llmserver.Tokens(2000, "tok ")),
			}})
			work := t.TempDir()
			testkit.NoError(t, os.WriteFile(filepath.Join(work, "a.txt"), []byte("one"), 0o644))
			args := []string{"--mode", "rpc", "--home", t.TempDir(), "--provider", "openai", "--model", "tiny", "--cwd", work}
			if mode != "" {
				args = append(args, "--partials", mode)
			}
			p := testkit.Start(t, bin, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}, args...)
			fmt.Fprintln(p.Stdin, `{"id":"1","type":"prompt","message":"read a.txt"}`)
			c := &partialsCheck{t: t, full: mode != "skeleton"}
			for {
				line, ok := p.ReadLine(60 * time.Second)
				if !ok {
					t.Fatalf("output ended before agent_end: %s", p.Stderr())
				}
				c.line(line)
				if strings.HasPrefix(line, `{"type":"agent_end"`) {
					break
				}
			}
			p.Stdin.Close()
			testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
			testkit.Equal(t, c.ended, 2)
			for _, kind := range []string{"thinking_delta", "text_delta", "toolcall_delta"} {
				if c.seen[kind] < 2 {
					t.Errorf("%d %s events, want at least 2", c.seen[kind], kind)
				}
			}
			if c.full && c.seen[`arguments {"path":"a.t"}`+"\x00"] == 0 {
				t.Errorf("no partial showed the arguments cut inside a string, as {\"path\":\"a.t\"}")
			}
			t.Logf("%s: %d delta lines", name, c.seen["text_delta"]+c.seen["thinking_delta"]+c.seen["toolcall_delta"])
		})
	}
}

type partialsCheck struct {
	t     *testing.T
	full  bool
	acc   []string // each block's deltas so far
	kinds []string
	last  []partialBlock // the content of the last partial
	ended int
	seen  map[string]int
}

type partialBlock struct {
	Type        string          `json:"type"`
	Text        *string         `json:"text"`
	Thinking    *string         `json:"thinking"`
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	PartialArgs *string         `json:"partialArgs"`
}

type partialMessage struct {
	Role    string         `json:"role"`
	Content []partialBlock `json:"content"`
}

type updateLine struct {
	Type    string          `json:"type"`
	Message json.RawMessage `json:"message"`
	Event   struct {
		Type         string          `json:"type"`
		ContentIndex int             `json:"contentIndex"`
		Delta        string          `json:"delta"`
		Content      *string         `json:"content"`
		ToolCall     *partialBlock   `json:"toolCall"`
		Partial      json.RawMessage `json:"partial"`
	} `json:"assistantMessageEvent"`
}

func (c *partialsCheck) line(line string) {
	t := c.t
	t.Helper()
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	var u updateLine
	testkit.NoError(t, json.Unmarshal([]byte(line), &u))
	switch {
	case u.Type == "message_start" && strings.Contains(string(u.Message), `"role":"assistant"`):
		c.acc, c.kinds, c.last = nil, nil, nil
	case u.Type == "message_end" && strings.Contains(string(u.Message), `"role":"assistant"`):
		c.messageEnd(u.Message)
	case u.Type == "message_update" && u.Event.Partial != nil:
		c.update(u)
	}
}

func (c *partialsCheck) update(u updateLine) {
	t := c.t
	t.Helper()
	ev, i := u.Event, u.Event.ContentIndex
	kind, phase, _ := strings.Cut(ev.Type, "_")
	c.seen[ev.Type]++
	switch phase {
	case "start":
		testkit.Equal(t, i, len(c.acc))
		c.acc, c.kinds = append(c.acc, ""), append(c.kinds, kind)
	case "delta":
		c.acc[i] += ev.Delta
	case "end":
		if kind == "toolcall" {
			jsonEqual(t, "toolcall_end toolCall", ev.ToolCall.Arguments, c.acc[i])
		} else if ev.Content == nil || *ev.Content != c.acc[i] {
			t.Fatalf("%s content %v, want the deltas %q", ev.Type, ev.Content, c.acc[i])
		}
	}
	if string(u.Message) != string(ev.Partial) {
		t.Fatalf("%s: message and partial differ:\n%s\n%s", ev.Type, u.Message, ev.Partial)
	}
	var m partialMessage
	testkit.NoError(t, json.Unmarshal(ev.Partial, &m))
	testkit.Equal(t, len(m.Content), len(c.acc))
	for j, b := range m.Content {
		if b.Type != map[string]string{"text": "text", "thinking": "thinking", "toolcall": "toolCall"}[c.kinds[j]] {
			t.Fatalf("%s: block %d is %s, want %s", ev.Type, j, b.Type, c.kinds[j])
		}
		if !c.full {
			if b.Text != nil || b.Thinking != nil || b.Arguments != nil || b.PartialArgs != nil {
				t.Fatalf("%s: skeleton block %d has content: %+v", ev.Type, j, b)
			}
			continue
		}
		c.block(ev.Type, b, c.acc[j], j == i && phase != "end")
	}
	c.last = m.Content
}

// block checks one block of a full partial against its deltas so far.
func (c *partialsCheck) block(ev string, b partialBlock, acc string, open bool) {
	t := c.t
	t.Helper()
	switch b.Type {
	case "text", "thinking":
		got := b.Text
		if b.Type == "thinking" {
			got = b.Thinking
		}
		if got == nil || *got != acc {
			t.Fatalf("%s: %s block %v, want the deltas %q", ev, b.Type, got, acc)
		}
	case "toolCall":
		if !open {
			if b.PartialArgs != nil {
				t.Fatalf("%s: closed tool call still has partialArgs", ev)
			}
			jsonEqual(t, ev+" arguments", b.Arguments, acc)
			return
		}
		if b.PartialArgs == nil || *b.PartialArgs != acc {
			t.Fatalf("%s: partialArgs %v, want the deltas %q", ev, b.PartialArgs, acc)
		}
		var args map[string]any
		if err := json.Unmarshal(b.Arguments, &args); err != nil {
			t.Fatalf("%s: arguments %s are not an object: %v", ev, b.Arguments, err)
		}
		if json.Valid([]byte(acc)) {
			jsonEqual(t, ev+" arguments", b.Arguments, acc)
		}
		c.seen["arguments "+string(b.Arguments)+"\x00"] = 1
	}
}

func (c *partialsCheck) messageEnd(raw json.RawMessage) {
	t := c.t
	t.Helper()
	c.ended++
	var m partialMessage
	testkit.NoError(t, json.Unmarshal(raw, &m))
	testkit.Equal(t, len(m.Content), len(c.acc))
	for j, b := range m.Content {
		c.block("message_end", b, c.acc[j], false)
	}
	if c.full && !reflect.DeepEqual(m.Content, c.last) {
		t.Fatalf("message_end content differs from the last partial:\n%+v\n%+v", m.Content, c.last)
	}
}

// jsonEqual checks that got is the JSON text want.
func jsonEqual(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %s: %v", what, got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the deltas %q are not JSON: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: %s, want %s", what, got, want)
	}
}

// An unknown --partials value is refused before anything starts, with
// the accepted values.
func TestPartialsFlagRefused(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	p := testkit.Start(t, bin, nil, "--mode", "rpc", "--home", t.TempDir(), "--partials", "text")
	testkit.Equal(t, p.Wait(t, 10*time.Second), 2)
	if _, ok := p.ReadLine(time.Second); ok {
		t.Error("wrote to stdout")
	}
	if !strings.Contains(p.Stderr(), `invalid value "text" for flag -partials`) || !strings.Contains(p.Stderr(), "want full or skeleton") {
		t.Errorf("stderr lacks the accepted values:\n%s", p.Stderr())
	}
}
