package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/terminal"
)

// attachInfo is what session/attach answers, as far as the client reads it.
type attachInfo struct {
	ClientID string `json:"clientId"`
	Meta     struct {
		Hydra struct {
			Status string `json:"status"`
			Busy   bool   `json:"busy"`
			Queue  []struct {
				MessageID  string          `json:"messageId"`
				Prompt     []promptBlock   `json:"prompt"`
				Originator json.RawMessage `json:"originator"`
			} `json:"queue"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

type promptBlock struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// attachSession connects to /acp and attaches to id with policy,
// replaying nothing before the answer but what the policy says.
func attachSession(ctx context.Context, c *daemonclient.Client, verb, id, policy string, readonly bool) (*daemonclient.ACP, attachInfo, error) {
	var info attachInfo
	a, err := c.DialACP(ctx, "troupe session "+verb)
	if err != nil {
		return nil, info, err
	}
	params := terminal.AttachParams(terminal.AttachOptions{SessionID: id, HistoryPolicy: policy, Readonly: readonly},
		"troupe session "+verb, currentVersion())
	res, err := a.Call(ctx, "session/attach", params, nil)
	if err != nil {
		a.Close()
		return nil, info, err
	}
	if err := json.Unmarshal(res, &info); err != nil {
		a.Close()
		return nil, info, fmt.Errorf("decode session/attach's answer: %w", err)
	}
	return a, info, nil
}

func newSessionCancelCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("cancel")
	verb.Args = wantArgs(1, 1, "a session id")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		a, info, err := attachSession(ctx, c, "cancel", pos[0], "none", false)
		if err != nil {
			return failed(stderr, "cancel", c, err)
		}
		defer a.Close()
		if !info.Meta.Hydra.Busy {
			fmt.Fprintf(stdout, "%s has no turn running; nothing to cancel\n", pos[0])
			return 0
		}
		if _, err := a.Call(ctx, "session/cancel", map[string]any{"sessionId": pos[0]}, nil); err != nil {
			return failed(stderr, "cancel", c, err)
		}
		fmt.Fprintf(stdout, "%s: the running turn is cancelled\n", pos[0])
		return 0
	})
}

func newSessionQueueCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("queue")
	cancel := verb.Flags().String("cancel", "", "cancel the queued prompt with this message id")
	edit := verb.Flags().String("edit", "", "replace the text of the queued prompt with this message id")
	asJSON := verb.Flags().Bool("json", false, "print the pending prompts as JSON")
	verb.Args = wantArgs(1, -1, "a session id (and with --edit, the new text)")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		id := pos[0]
		switch {
		case *cancel != "" && *edit != "":
			fmt.Fprintln(stderr, "troupe session queue: --cancel and --edit go one at a time")
			return 2
		case *edit != "" && len(pos) < 2:
			fmt.Fprintln(stderr, "troupe session queue: --edit MSG needs the new text after the session id")
			return 2
		case *edit == "" && len(pos) > 1:
			fmt.Fprintf(stderr, "troupe session queue: unexpected argument %q\n", pos[1])
			return 2
		}
		mutate := *cancel != "" || *edit != ""
		a, info, err := attachSession(ctx, c, "queue", id, "pending_only", !mutate)
		if err != nil {
			return failed(stderr, "queue", c, err)
		}
		defer a.Close()
		if mutate {
			return queueChange(ctx, c, a, id, *cancel, *edit, strings.Join(pos[1:], " "), stdout, stderr)
		}
		q := info.Meta.Hydra.Queue
		if *asJSON {
			if len(q) == 0 {
				fmt.Fprintln(stdout, "[]") // an empty list, not null: q[:0] of nil is nil
				return 0
			}
			_ = json.NewEncoder(stdout).Encode(q)
			return 0
		}
		if len(q) == 0 {
			fmt.Fprintf(stdout, "%s has no pending prompt\n", id)
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "MESSAGE\tPROMPT")
		for _, p := range q {
			fmt.Fprintf(tw, "%s\t%s\n", p.MessageID, clip(promptText(p.Prompt), 80))
		}
		_ = tw.Flush()
		return 0
	})
}

// queueChange cancels or edits one queued prompt through the hydra
// prompt-queue methods.
func queueChange(ctx context.Context, c *daemonclient.Client, a *daemonclient.ACP, id, cancel, edit, text string, stdout, stderr io.Writer) int {
	method, params, msg := "hydra-acp/prompt/cancel", map[string]any{"sessionId": id, "messageId": cancel}, cancel
	if edit != "" {
		method, msg = "hydra-acp/prompt/update", edit
		params = map[string]any{"sessionId": id, "messageId": edit, "prompt": []any{map[string]any{"type": "text", "text": text}}}
	}
	res, err := a.Call(ctx, method, params, nil)
	if err != nil {
		return failed(stderr, "queue", c, err)
	}
	var out struct {
		Cancelled, Updated bool
		Reason             string
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return failed(stderr, "queue", c, fmt.Errorf("decode %s's answer: %w", method, err))
	}
	if out.Cancelled || out.Updated {
		fmt.Fprintf(stdout, "%s %s\n", msg, map[bool]string{true: "cancelled", false: "updated"}[out.Cancelled])
		return 0
	}
	switch out.Reason {
	case "already_running":
		fmt.Fprintf(stderr, "troupe session queue: %s is running now: use `troupe session cancel %s`\n", msg, id)
	default:
		fmt.Fprintf(stderr, "troupe session queue: no pending prompt %s in %s: see `troupe session queue %s`\n", msg, id, id)
	}
	return 1
}

func promptText(blocks []promptBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != "":
			parts = append(parts, b.Text)
		case b.URI != "":
			parts = append(parts, "["+b.URI+"]")
		default:
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, " ")
}
