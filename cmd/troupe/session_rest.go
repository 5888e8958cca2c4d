package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

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

func runSessionList(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("list", stderr)
	cwd := v.fs.String("cwd", "", "only the sessions of this directory")
	asJSON := v.fs.Bool("json", false, "print the REST entries as JSON")
	if _, code, ok := v.parse(args, 0, 0, "no argument"); !ok {
		return code
	}
	path := "/v1/sessions"
	if *cwd != "" {
		dir, err := absDir(*cwd)
		if err != nil {
			return failed(stderr, "list", c, err)
		}
		path += "?cwd=" + url.QueryEscape(dir)
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
	fmt.Fprintln(tw, "ID\tTITLE\tSTATUS\tBUSY\tINPUT\tCLIENTS\tMODEL\tUPDATED")
	for _, raw := range out.Sessions {
		var e sessionInfo
		if err := json.Unmarshal(raw, &e); err != nil {
			return failed(stderr, "list", c, fmt.Errorf("decode a session: %w", err))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", e.SessionID, dash(clip(e.Title, 40)), e.Status,
			yes(e.Busy), yes(e.AwaitingInput), e.AttachedClients, dash(e.CurrentModel), e.UpdatedAt.Local().Format("2006-01-02 15:04"))
	}
	_ = tw.Flush()
	return 0
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

func runSessionNew(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("new", stderr)
	cwd := v.fs.String("cwd", "", "the session's directory (default: the current one)")
	model := v.fs.String("model", "", "the model, as provider/model (default: the daemon's)")
	title := v.fs.String("title", "", "the session's title")
	if _, code, ok := v.parse(args, 0, 0, "no argument"); !ok {
		return code
	}
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
}

func runSessionFork(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("fork", stderr)
	at := v.fs.String("at", "", "the turn to fork at: its prompt's message id (default: the last finished turn)")
	cwd := v.fs.String("cwd", "", "the fork's directory (default: the source's)")
	pos, code, ok := v.parse(args, 1, 1, "a session id")
	if !ok {
		return code
	}
	body := map[string]any{}
	if *at != "" {
		body["forkAt"] = *at
	}
	if *cwd != "" {
		dir, err := absDir(*cwd)
		if err != nil {
			return failed(stderr, "fork", c, err)
		}
		body["cwd"] = dir
	}
	var out struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.Do(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(pos[0])+"/fork", body, &out); err != nil {
		return failed(stderr, "fork", c, err)
	}
	fmt.Fprintln(stdout, out.SessionID)
	return 0
}

// copyBody writes a GET's body to w.
func copyBody(ctx context.Context, c *daemonclient.Client, path string, w io.Writer) error {
	res, err := c.Send(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(w, res.Body); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

func runSessionExport(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("export", stderr)
	out := v.fs.String("o", "", "write the bundle to FILE (default: stdout)")
	pos, code, ok := v.parse(args, 1, 1, "a session id")
	if !ok {
		return code
	}
	w := stdout
	var tmp *os.File
	if *out != "" {
		// Written beside FILE and renamed once whole: a failed export
		// leaves no half bundle.
		f, err := os.CreateTemp(dirOf(*out), ".troupe-export-*")
		if err != nil {
			return failed(stderr, "export", c, err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		w, tmp = f, f
	}
	if err := copyBody(ctx, c, "/v1/sessions/"+url.PathEscape(pos[0])+"/export", w); err != nil {
		return failed(stderr, "export", c, err)
	}
	if tmp != nil {
		if err := tmp.Close(); err != nil {
			return failed(stderr, "export", c, err)
		}
		if err := os.Rename(tmp.Name(), *out); err != nil {
			return failed(stderr, "export", c, err)
		}
	}
	return 0
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i+1]
	}
	return "."
}

func runSessionImport(ctx context.Context, c *daemonclient.Client, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("import", stderr)
	replace := v.fs.Bool("replace", false, "replace the session of the same lineage, keeping its id")
	cwd := v.fs.String("cwd", "", "the imported session's directory (default: the bundle's)")
	pos, code, ok := v.parse(args, 1, 1, "a bundle file (or - for stdin)")
	if !ok {
		return code
	}
	var b []byte
	var err error
	if pos[0] == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(pos[0])
	}
	if err != nil {
		return failed(stderr, "import", c, fmt.Errorf("read the bundle: %w", err))
	}
	if !json.Valid(b) {
		return failed(stderr, "import", c, fmt.Errorf("%s is not a JSON bundle", pos[0]))
	}
	body := map[string]any{"bundle": json.RawMessage(b), "replace": *replace}
	if *cwd != "" {
		dir, err := absDir(*cwd)
		if err != nil {
			return failed(stderr, "import", c, err)
		}
		body["cwd"] = dir
	}
	var out struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.Do(ctx, http.MethodPost, "/v1/sessions/import", body, &out); err != nil {
		var he *daemonclient.Error
		if asError(err, &he) && he.Status == http.StatusConflict {
			var clash struct {
				Existing string `json:"existingSessionId"`
			}
			if json.Unmarshal(he.Body, &clash) == nil && clash.Existing != "" {
				return failed(stderr, "import", c, fmt.Errorf("already imported as %s: pass --replace to overwrite it", clash.Existing))
			}
		}
		return failed(stderr, "import", c, err)
	}
	fmt.Fprintln(stdout, out.SessionID)
	return 0
}

func runSessionTranscript(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("transcript", stderr)
	pos, code, ok := v.parse(args, 1, 1, "a session id")
	if !ok {
		return code
	}
	if err := copyBody(ctx, c, "/v1/sessions/"+url.PathEscape(pos[0])+"/transcript", stdout); err != nil {
		return failed(stderr, "transcript", c, err)
	}
	return 0
}

// fileDiff is one entry of GET /diff.
type fileDiff struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Hunks   []struct {
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	} `json:"hunks"`
}

func runSessionDiff(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("diff", stderr)
	fold := v.fs.Bool("fold", false, "collapse hunks that rewrite the same region")
	paths := v.fs.String("paths", "", "only these files (comma-separated)")
	asJSON := v.fs.Bool("json", false, "print the REST answer")
	pos, code, ok := v.parse(args, 1, 1, "a session id")
	if !ok {
		return code
	}
	q := url.Values{}
	if *fold {
		q.Set("fold", "true")
	}
	if *paths != "" {
		q.Set("paths", *paths)
	}
	path := "/v1/sessions/" + url.PathEscape(pos[0]) + "/diff"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	if *asJSON {
		if err := copyBody(ctx, c, path, stdout); err != nil {
			return failed(stderr, "diff", c, err)
		}
		return 0
	}
	var files []fileDiff
	if err := c.Do(ctx, http.MethodGet, path, nil, &files); err != nil {
		return failed(stderr, "diff", c, err)
	}
	for _, f := range files {
		note := ""
		if f.Created {
			note = " (created)"
		}
		fmt.Fprintf(stdout, "=== %s%s\n", f.Path, note)
		for _, h := range f.Hunks {
			fmt.Fprintln(stdout, "@@")
			writePrefixed(stdout, "-", h.OldText)
			writePrefixed(stdout, "+", h.NewText)
		}
	}
	return 0
}

func writePrefixed(w io.Writer, prefix, text string) {
	if text == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(w, "%s%s\n", prefix, l)
	}
}

func runSessionSearch(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("search", stderr)
	asJSON := v.fs.Bool("json", false, "print the REST answer")
	pos, code, ok := v.parse(args, 1, -1, "the text to search for")
	if !ok {
		return code
	}
	var out struct {
		Matches []struct {
			SessionID string `json:"sessionId"`
			MessageID string `json:"messageId"`
			Snippet   string `json:"snippet"`
		} `json:"matches"`
	}
	if err := c.Do(ctx, http.MethodPost, "/v1/sessions/search", map[string]any{"q": strings.Join(pos, " ")}, &out); err != nil {
		return failed(stderr, "search", c, err)
	}
	if *asJSON {
		_ = json.NewEncoder(stdout).Encode(out)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, m := range out.Matches {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.SessionID, m.MessageID, clip(m.Snippet, 100))
	}
	_ = tw.Flush()
	return 0
}

func runSessionKill(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("kill", stderr)
	pos, code, ok := v.parse(args, 1, 1, "a session id")
	if !ok {
		return code
	}
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
}

func runSessionRm(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("rm", stderr)
	pos, code, ok := v.parse(args, 1, 1, "a session id")
	if !ok {
		return code
	}
	if err := c.Do(ctx, http.MethodDelete, "/v1/sessions/"+url.PathEscape(pos[0]), nil, nil); err != nil {
		return failed(stderr, "rm", c, err)
	}
	fmt.Fprintf(stdout, "%s removed\n", pos[0])
	return 0
}

func runSessionTitle(ctx context.Context, c *daemonclient.Client, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	v := newVerbFlags("title", stderr)
	pos, code, ok := v.parse(args, 2, -1, "a session id and the title")
	if !ok {
		return code
	}
	title := strings.Join(pos[1:], " ")
	if err := c.Do(ctx, http.MethodPatch, "/v1/sessions/"+url.PathEscape(pos[0]), map[string]any{"title": title}, nil); err != nil {
		return failed(stderr, "title", c, err)
	}
	return 0
}
