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

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/transports/daemonclient"
)

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

func newSessionTranscriptCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("transcript")
	verb.Args = wantArgs(1, 1, "a session id")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		if err := copyBody(ctx, c, "/v1/sessions/"+url.PathEscape(pos[0])+"/transcript?tools=1", stdout); err != nil {
			return failed(stderr, "transcript", c, err)
		}
		return 0
	})
}

// fileDiff is one entry of GET /diff.
type fileDiff struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Hunks   []struct {
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
		Diff    string `json:"diff"`
	} `json:"hunks"`
}

func newSessionDiffCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("diff")
	fold := verb.Flags().Bool("fold", false, "collapse hunks that rewrite the same region")
	paths := verb.Flags().String("paths", "", "only these files (comma-separated)")
	asJSON := verb.Flags().Bool("json", false, "print the REST answer")
	verb.Args = wantArgs(1, 1, "a session id")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
				if h.Diff != "" {
					writeHunks(stdout, h.Diff)
					continue
				}
				// A daemon that sends no diff: the two texts as they are.
				fmt.Fprintln(stdout, "@@")
				writePrefixed(stdout, "-", h.OldText)
				writePrefixed(stdout, "+", h.NewText)
			}
		}
		return 0
	})
}

// writeHunks writes a unified diff's hunks, its ---/+++ header left out:
// the "=== path" line names the file once for all its changes.
func writeHunks(w io.Writer, diff string) {
	if i := strings.Index(diff, "@@"); i > 0 {
		diff = diff[i:] // the header is what precedes the first hunk
	}
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		fmt.Fprintln(w, l)
	}
}

func writePrefixed(w io.Writer, prefix, text string) {
	if text == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(w, "%s%s\n", prefix, l)
	}
}

func newSessionSearchCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("search")
	asJSON := verb.Flags().Bool("json", false, "print the REST answer")
	verb.Args = wantArgs(1, -1, "the text to search for")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		var out struct {
			Matches []struct {
				SessionID string `json:"sessionId"`
				MessageID string `json:"messageId"`
				Snippet   string `json:"snippet"`
			} `json:"matches"`
		}
		q := strings.TrimSpace(strings.Join(pos, " "))
		if q == "" {
			// Said here, in the command's words: the daemon would name
			// its parameter ("q is required").
			fmt.Fprintln(stderr, "troupe session search: give the text to search for")
			return 2
		}
		if err := c.Do(ctx, http.MethodPost, "/v1/sessions/search", map[string]any{"q": q}, &out); err != nil {
			return failed(stderr, "search", c, err)
		}
		if *asJSON {
			_ = json.NewEncoder(stdout).Encode(out)
			return 0
		}
		if len(out.Matches) == 0 {
			fmt.Fprintf(stderr, "no session mentions %q\n", strings.Join(pos, " "))
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, m := range out.Matches {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", m.SessionID, m.MessageID, clip(m.Snippet, 100))
		}
		_ = tw.Flush()
		return 0
	})
}
