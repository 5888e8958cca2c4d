package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/transports/daemonclient"
)

// newSessionRmCmd is `session rm ID`. A session with forks is named with
// them: the forks read the start of their conversation from it, so the
// daemon either refuses (then the forks are named with what to do) or
// deletes it keeping each fork whole (then the forks are named as kept).
func newSessionRmCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("rm")
	verb.Args = wantArgs(1, 1, "a session id")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		id := pos[0]
		forks, err := forksOf(ctx, c, id)
		if err != nil {
			return failed(stderr, "rm", c, err)
		}
		err = c.Do(ctx, http.MethodDelete, "/v1/sessions/"+url.PathEscape(id), nil, nil)
		var rest *daemonclient.Error
		if err != nil && len(forks) > 0 && asError(err, &rest) && rest.Status == http.StatusConflict && strings.Contains(rest.Message, "has forks") {
			fmt.Fprintf(stderr, "troupe session rm: %s was not removed: its forks read the start of their conversation from it: %s.\n"+
				"Remove each fork first (`troupe session rm FORK`), then %s; or keep it.\n", id, forkNames(forks), id)
			return 1
		}
		if err != nil {
			return failed(stderr, "rm", c, err)
		}
		fmt.Fprintf(stdout, "%s removed\n", id)
		if len(forks) > 0 {
			fmt.Fprintf(stderr, "its forks are kept whole, with the conversation they inherited: %s\n", forkNames(forks))
		}
		return 0
	})
}

// forksOf are the sessions forked from id, piped ones too.
func forksOf(ctx context.Context, c *daemonclient.Client, id string) ([]sessionInfo, error) {
	var out struct {
		Sessions []sessionInfo `json:"sessions"`
	}
	if err := c.Do(ctx, http.MethodGet, "/v1/sessions?includeNonInteractive=1", nil, &out); err != nil {
		return nil, err
	}
	var forks []sessionInfo
	for _, e := range out.Sessions {
		if e.ForkedFromSessionID == id {
			forks = append(forks, e)
		}
	}
	return forks, nil
}

// forkNames lists forks by id, each with its title.
func forkNames(forks []sessionInfo) string {
	names := make([]string, len(forks))
	for i, f := range forks {
		names[i] = f.SessionID
		if f.Title != "" {
			names[i] += fmt.Sprintf(" (%q)", clip(f.Title, 40))
		}
	}
	return strings.Join(names, ", ")
}
