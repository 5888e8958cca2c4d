package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/troupehq/troupe/transports/daemonclient"
)

// Exit statuses of `troupe session prompt`, from the turn's stop reason.
const (
	promptEndTurn   = 0
	promptError     = 1 // the run failed, or the daemon could not be reached
	promptRefusal   = 3
	promptMaxTokens = 4 // max_tokens or max_turn_requests
	promptCancelled = 130
)

// promptExit maps an ACP stop reason to the exit status.
func promptExit(reason string) int {
	switch reason {
	case "end_turn":
		return promptEndTurn
	case "cancelled":
		return promptCancelled
	case "refusal":
		return promptRefusal
	case "max_tokens", "max_turn_requests":
		return promptMaxTokens
	}
	return promptError
}

// runSessionPrompt sends a prompt over ACP and streams the agent's text
// to stdout, line-oriented and plain; tool calls and notes go to stderr.
// Interrupted (ctx ends: Ctrl-C) it cancels the turn and waits for its end.
func runSessionPrompt(ctx context.Context, c *daemonclient.Client, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("prompt", stderr)
	queue := v.fs.Bool("queue", false, "enqueue the prompt and return without waiting for its answer")
	pos, code, ok := v.parse(args, 2, -1, "a session id and the prompt (- reads it from stdin)")
	if !ok {
		return code
	}
	id, text := pos[0], strings.Join(pos[1:], " ")
	if text == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return failed(stderr, "prompt", c, fmt.Errorf("read the prompt from stdin: %w", err))
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		fmt.Fprintln(stderr, "troupe session prompt: the prompt is empty")
		return 2
	}
	// The connection outlives ctx: an interrupt cancels the turn on it.
	conn, stop := context.WithCancel(context.Background())
	defer stop()
	a, info, err := attachSession(conn, c, "prompt", id, "none", false)
	if err != nil {
		return failed(stderr, "prompt", c, err)
	}
	defer a.Close()
	pid, err := a.Send("session/prompt", map[string]any{"sessionId": id,
		"prompt": []any{map[string]any{"type": "text", "text": text}}})
	if err != nil {
		return failed(stderr, "prompt", c, err)
	}
	if *queue {
		return awaitQueued(conn, c, a, info.ClientID, stdout, stderr)
	}
	cancelled := context.AfterFunc(ctx, func() {
		fmt.Fprintln(stderr, "troupe session prompt: cancelling the turn (Ctrl-C again to leave at once)")
		_, _ = a.Send("session/cancel", map[string]any{"sessionId": id})
	})
	defer cancelled()
	p := &promptStream{id: id, stdout: stdout, stderr: stderr}
	res, err := a.Await(conn, pid, p.frame)
	p.endLine()
	var closed *daemonclient.ClosedError
	if errors.As(err, &closed) {
		// The prompt is in the session's durable queue: it is not lost.
		fmt.Fprintf(stderr, "troupe session prompt: %v; the turn goes on when the daemon runs again: see `troupe session transcript %s`\n", err, id)
		return promptError
	}
	if err != nil {
		return failed(stderr, "prompt", c, err)
	}
	var out struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return failed(stderr, "prompt", c, fmt.Errorf("decode the answer: %w", err))
	}
	if out.StopReason != "end_turn" {
		fmt.Fprintf(stderr, "troupe session prompt: the turn ended: %s\n", out.StopReason)
	}
	return promptExit(out.StopReason)
}

// promptStream writes one prompt's updates.
type promptStream struct {
	id             string
	stdout, stderr io.Writer
	open           bool // agent text written without its final newline
	asked          bool
}

type promptUpdate struct {
	Update struct {
		SessionUpdate string `json:"sessionUpdate"`
		// A chunk's is one block, a tool call's a list: decoded by kind.
		Content json.RawMessage `json:"content"`
		Title   string          `json:"title"`
		Status  string          `json:"status"`
	} `json:"update"`
}

func (p *promptStream) frame(f daemonclient.Frame) error {
	switch f.Method {
	case "session/update":
		var u promptUpdate
		if err := json.Unmarshal(f.Params, &u); err != nil {
			return fmt.Errorf("decode session/update: %w", err)
		}
		switch u.Update.SessionUpdate {
		case "agent_message_chunk":
			var block struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(u.Update.Content, &block); err != nil {
				return fmt.Errorf("decode a chunk: %w", err)
			}
			if t := block.Text; t != "" {
				_, _ = io.WriteString(p.stdout, t)
				p.open = !strings.HasSuffix(t, "\n")
			}
		case "tool_call":
			p.endLine()
			fmt.Fprintf(p.stderr, "[tool] %s\n", u.Update.Title)
		case "tool_call_update":
			if u.Update.Status == "completed" || u.Update.Status == "failed" {
				fmt.Fprintf(p.stderr, "[tool %s]\n", u.Update.Status)
			}
		}
	case "session/request_permission":
		// A plain stream cannot ask: it leaves the request open for a
		// client that can.
		if !p.asked {
			p.endLine()
			fmt.Fprintf(p.stderr, "troupe session prompt: a tool call waits for permission: answer it with `troupe session attach %s`\n", p.id)
			p.asked = true
		}
	}
	return nil
}

// endLine ends the agent's text with a newline if it has none.
func (p *promptStream) endLine() {
	if p.open {
		_, _ = io.WriteString(p.stdout, "\n")
		p.open = false
	}
}

// awaitQueued reads until the daemon has queued the prompt (every prompt
// is announced as added, a run starting on it only after); prints its
// message id and position (0: running now).
func awaitQueued(ctx context.Context, c *daemonclient.Client, a *daemonclient.ACP, clientID string, stdout, stderr io.Writer) int {
	done := errors.New("done")
	err := func() error {
		for {
			f, err := a.Read(ctx)
			if err != nil {
				return err
			}
			if f.Error != nil {
				return f.Error
			}
			var n struct {
				MessageID  string `json:"messageId"`
				Position   int    `json:"position"`
				Originator struct {
					ClientID string `json:"clientId"`
				} `json:"originator"`
			}
			_ = json.Unmarshal(f.Params, &n)
			if f.Method == "hydra-acp/prompt_queue/added" && n.Originator.ClientID == clientID {
				fmt.Fprintf(stdout, "%s queued at position %d\n", n.MessageID, n.Position)
				return done
			}
		}
	}()
	if errors.Is(err, done) {
		return 0
	}
	return failed(stderr, "prompt", c, err)
}
