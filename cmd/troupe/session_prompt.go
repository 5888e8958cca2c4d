package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/terminal"
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

// runSessionPrompt sends a prompt over ACP and renders its turn through
// transports/terminal: the answer to stdout, the rest (thinking, tool
// lines, notes) to stderr; on a terminal with colour and the spinner.
// With stdin a terminal a permission request is answered by key; without
// one it is denied (or left open for `troupe session attach` for
// --timeout); --allow and --deny answer the tools they name unasked.
// Ctrl-C cancels the turn and
// waits for its end; a second one leaves at once.
func newSessionPromptCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("prompt")
	queue := verb.Flags().Bool("queue", false, "enqueue the prompt and return without waiting for its answer")
	var policy terminal.Policy
	verb.Flags().StringSliceVar(&policy.Allow, "allow", nil, "answer permission requests of these tools allow, unasked: kinds (read, edit, delete, move, search, execute, fetch, other), tool names, or all")
	verb.Flags().StringSliceVar(&policy.Deny, "deny", nil, "answer permission requests of these tools deny, unasked (as --allow; wins over it)")
	verb.Flags().DurationVar(&policy.Timeout, "timeout", 0, "deny a permission request left unanswered this long (without a terminal: left open for `session attach` meanwhile)")
	verb.Args = wantArgs(2, -1, "a session id and the prompt (- reads it from stdin)")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		id, text := pos[0], strings.Join(pos[1:], " ")
		fromStdin := text == "-"
		if fromStdin {
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
		if *queue {
			return queuePrompt(c, id, text, stdout, stderr)
		}
		view, err := openSessionView(ctx, c, viewOptions{name: "troupe session prompt", side: stderr,
			keys: !fromStdin && isTerminal(stdin)}, stdin, stdout, stderr)
		if err != nil {
			return failed(stderr, "prompt", c, err)
		}
		defer view.close()
		view.cfg.AskElsewhere = "a tool call waits for permission: answer it with `troupe session attach " + id + "`"
		// Without a terminal nobody can answer here: unless --timeout leaves
		// the request open for attach, it is denied at once rather than
		// waited on for ever, the note naming the flag that allows it.
		policy.Unattended = view.cfg.Keys == nil
		policy.Hint = func(a *terminal.Ask) string { return unattendedHint(a, id) }
		view.cfg.Policy = &policy
		ints := make(chan os.Signal, 1)
		if view.cfg.Keys != nil {
			// Ctrl-C comes as a key; a SIGINT from elsewhere is caught too, so
			// troupe leaves through the view, which gives the terminal back.
			signal.Notify(ints, os.Interrupt)
			defer signal.Stop(ints)
		} else {
			// The dispatcher's first SIGINT cancels the turn; it lets the
			// second end troupe at once.
			defer context.AfterFunc(ctx, func() { ints <- os.Interrupt })()
		}
		view.cfg.Interrupts = ints

		stop, err := terminal.PromptTurn(view.ctx, view.cfg, id, text)
		if errors.Is(err, terminal.ErrClosed) {
			// The prompt is in the session's durable queue: it is not lost.
			fmt.Fprintf(stderr, "troupe session prompt: %v; the turn goes on when the daemon runs again: see `troupe session transcript %s`\n", err, id)
			return promptError
		}
		if err != nil {
			return failed(stderr, "prompt", c, err)
		}
		// The view has already said how the turn ended ("── cancelled"); the
		// exit status says it to scripts.
		return promptExit(stop)
	})
}

// unattendedHint names the flags that would have let a request through
// with nobody at a terminal.
func unattendedHint(a *terminal.Ask, id string) string {
	allow := a.Kind
	if allow == "" || allow == "other" {
		allow = a.Title
	}
	return fmt.Sprintf("`--allow %s` allows it, `--timeout 10m` leaves it open for `troupe session attach %s`", allow, id)
}

// queuePrompt is prompt --queue: it sends the prompt and returns once the
// daemon has queued it.
func queuePrompt(c *daemonclient.Client, id, text string, stdout, stderr io.Writer) int {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	a, info, err := attachSession(ctx, c, "prompt", id, "none", false)
	if err != nil {
		return failed(stderr, "prompt", c, err)
	}
	defer a.Close()
	if _, err := a.Send("session/prompt", map[string]any{"sessionId": id,
		"prompt": []any{map[string]any{"type": "text", "text": text}}}); err != nil {
		return failed(stderr, "prompt", c, err)
	}
	return awaitQueued(ctx, c, a, info.ClientID, stdout, stderr)
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
