package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/transports/daemonclient"
)

// sessionInfo is a REST SessionListEntry, as the client reads it.
type sessionInfo struct {
	SessionID           string    `json:"sessionId"`
	Title               string    `json:"title"`
	Cwd                 string    `json:"cwd"`
	Status              string    `json:"status"`
	StatusReason        string    `json:"statusReason,omitempty"`
	Busy                bool      `json:"busy"`
	AwaitingInput       bool      `json:"awaitingInput"`
	AttachedClients     int       `json:"attachedClients"`
	CurrentModel        string    `json:"currentModel,omitempty"`
	ForkedFromSessionID string    `json:"forkedFromSessionId,omitempty"`
	UpdatedAt           time.Time `json:"updatedAt"`
}

func listSessions(ctx context.Context, c *daemonclient.Client) ([]sessionInfo, error) {
	var out struct {
		Sessions []sessionInfo `json:"sessions"`
	}
	err := c.Do(ctx, http.MethodGet, "/v1/sessions", nil, &out)
	return out.Sessions, err
}

func newSessionListCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("list")
	cwd := verb.Flags().String("cwd", "", "only the sessions of this directory")
	asJSON := verb.Flags().Bool("json", false, "print the REST entries as JSON")
	// As Hydra's `sessions --all`: sessions nobody made interactive (cat's,
	// a fork not yet prompted) are left out unless asked for.
	all := verb.Flags().Bool("all", false, "include sessions not made interactive (cat's, forks not yet prompted)")
	verb.Args = noArgs
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		q := url.Values{}
		if *cwd != "" {
			dir, err := absDir(*cwd)
			if err != nil {
				return failed(stderr, "list", c, err)
			}
			q.Set("cwd", dir)
		}
		if *all {
			q.Set("includeNonInteractive", "1")
		}
		path := "/v1/sessions"
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
		var out struct {
			Sessions []json.RawMessage `json:"sessions"`
		}
		if err := c.Do(ctx, http.MethodGet, path, nil, &out); err != nil {
			return failed(stderr, "list", c, err)
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if out.Sessions == nil {
				out.Sessions = []json.RawMessage{}
			}
			_ = enc.Encode(out.Sessions)
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTITLE\tSTATUS\tBUSY\tINPUT\tCLIENTS\tMODEL\tFORK OF\tUPDATED")
		for _, raw := range out.Sessions {
			var e sessionInfo
			if err := json.Unmarshal(raw, &e); err != nil {
				return failed(stderr, "list", c, fmt.Errorf("decode a session: %w", err))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", e.SessionID, dash(clip(e.Title, 40)), e.Status,
				yes(e.Busy), yes(e.AwaitingInput), e.AttachedClients, dash(e.CurrentModel), dash(e.ForkedFromSessionID),
				e.UpdatedAt.Local().Format("2006-01-02 15:04"))
		}
		_ = tw.Flush()
		return 0
	})
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}

// clip shortens s to n runes on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newSessionNewCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("new")
	cwd := verb.Flags().String("cwd", "", "the session's directory (default: the current one)")
	model := verb.Flags().String("model", "", "the model, as provider/model (default: the daemon's)")
	title := verb.Flags().String("title", "", "the session's title")
	verb.Args = noArgs
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		dir, err := absDir(*cwd)
		if err != nil {
			return failed(stderr, "new", c, err)
		}
		body := map[string]any{"cwd": dir}
		if *model != "" {
			body["model"] = *model
		}
		if *title != "" {
			body["title"] = *title
		}
		var out struct {
			SessionID string `json:"sessionId"`
		}
		if err := c.Do(ctx, http.MethodPost, "/v1/sessions", body, &out); err != nil {
			return failed(stderr, "new", c, err)
		}
		fmt.Fprintln(stdout, out.SessionID)
		return 0
	})
}

func newSessionForkCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("fork")
	at := verb.Flags().String("at", "", "the turn to fork at: its prompt's message id (default: the last finished turn)")
	cwd := verb.Flags().String("cwd", "", "the fork's directory (default: the source's)")
	verb.Args = wantArgs(1, 1, "a session id")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		body := map[string]any{}
		if *at != "" {
			body["forkAt"] = *at
		}
		id, err := postForID(ctx, c, "/v1/sessions/"+url.PathEscape(pos[0])+"/fork", body, *cwd)
		if err != nil {
			return failed(stderr, "fork", c, err)
		}
		fmt.Fprintln(stdout, id)
		return 0
	})
}

// postForID posts body, with cwd made absolute when given, and returns
// the id of the session the daemon made (fork, import).
func postForID(ctx context.Context, c *daemonclient.Client, path string, body map[string]any, cwd string) (string, error) {
	if cwd != "" {
		dir, err := absDir(cwd)
		if err != nil {
			return "", err
		}
		body["cwd"] = dir
	}
	var out struct {
		SessionID string `json:"sessionId"`
	}
	err := c.Do(ctx, http.MethodPost, path, body, &out)
	return out.SessionID, err
}

func newSessionKillCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("kill")
	verb.Args = wantArgs(1, 1, "a session id")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		res, err := c.Send(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(pos[0])+"/kill", nil)
		if err != nil {
			return failed(stderr, "kill", c, err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusNoContent {
			fmt.Fprintf(stdout, "%s was not live; nothing to stop\n", pos[0])
			return 0
		}
		fmt.Fprintf(stdout, "%s stopped (cold)\n", pos[0])
		return 0
	})
}

func newSessionTitleCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("title")
	verb.Args = wantArgs(2, -1, "a session id and the title")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		title := strings.Join(pos[1:], " ")
		if strings.TrimSpace(title) == "" {
			fmt.Fprintln(stderr, "troupe session title: give the title after the session id")
			return 2
		}
		if err := c.Do(ctx, http.MethodPatch, "/v1/sessions/"+url.PathEscape(pos[0]), map[string]any{"title": title}, nil); err != nil {
			return failed(stderr, "title", c, err)
		}
		return 0
	})
}
