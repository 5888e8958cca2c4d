package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/transports/daemonclient"
)

func newSessionExportCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("export")
	out := verb.Flags().StringP("output", "o", "", "write the bundle to `FILE` (default: stdout)")
	verb.Args = wantArgs(1, 1, "a session id")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		w := stdout
		var tmp *os.File
		if *out != "" {
			// Written beside FILE and renamed once whole: a failed export
			// leaves no half bundle.
			f, err := os.CreateTemp(dirOf(*out), ".troupe-export-*")
			if err != nil {
				return failed(stderr, "export", c, targetError(*out, err))
			}
			defer os.Remove(f.Name())
			defer f.Close()
			w, tmp = f, f
		}
		if err := copyBody(ctx, c, "/v1/sessions/"+url.PathEscape(pos[0])+"/export", w); err != nil {
			if pe := (*fs.PathError)(nil); tmp != nil && errors.As(err, &pe) {
				err = targetError(*out, err) // writing the temporary file failed
			}
			return failed(stderr, "export", c, err)
		}
		if tmp != nil {
			if err := tmp.Close(); err != nil {
				return failed(stderr, "export", c, targetError(*out, err))
			}
			if err := os.Rename(tmp.Name(), *out); err != nil {
				return failed(stderr, "export", c, targetError(*out, err))
			}
		}
		return 0
	})
}

// targetError names the file the user asked for, not the temporary one
// beside it the bundle is written to first: a file-system error names the
// path it failed on, which the user never gave.
func targetError(target string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return fmt.Errorf("write %s: %w", target, err)
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i+1]
	}
	return "."
}

func newSessionImportCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("import")
	// A string, not a switch: the session replaced is the importer's to
	// name, never the bundle's lineage to pick.
	replace := verb.Flags().String("replace", "", "replace session `ID` (of the bundle's lineage), keeping its id")
	cwd := verb.Flags().String("cwd", "", "the imported session's directory (default: the bundle's, if it is a directory here)")
	verb.Args = wantArgs(1, 1, "a bundle file (or - for stdin)")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
		body := map[string]any{"bundle": json.RawMessage(b)}
		if *replace != "" {
			body["replace"], body["replaceSessionId"] = true, *replace
		}
		if *cwd != "" {
			dir, err := absDir(*cwd)
			if err != nil {
				return failed(stderr, "import", c, err)
			}
			body["cwd"] = dir
		}
		var out importAnswer
		if err := c.Do(ctx, http.MethodPost, "/v1/sessions/import", body, &out); err != nil {
			var he *daemonclient.Error
			if asError(err, &he) && he.Status == http.StatusConflict {
				var clash struct {
					Existing string `json:"existingSessionId"`
				}
				if json.Unmarshal(he.Body, &clash) == nil && clash.Existing != "" {
					return failed(stderr, "import", c, fmt.Errorf("already imported as %s: pass --replace %s to overwrite it", clash.Existing, clash.Existing))
				}
			}
			return failed(stderr, "import", c, err)
		}
		out.tell(stderr)
		fmt.Fprintln(stdout, out.SessionID)
		return 0
	})
}

// importAnswer is what POST /v1/sessions/import answers.
type importAnswer struct {
	SessionID string `json:"sessionId"`
	Sanitized *struct {
		MCPServers     []string `json:"mcpServers"`
		ApprovalMode   string   `json:"approvalMode"`
		CrashPolicy    string   `json:"crashPolicy"`
		AdditionalDirs []string `json:"additionalDirs"`
		AllowAlways    int      `json:"allowAlways"`
	} `json:"sanitized"`
	InterruptedRunID string   `json:"interruptedRunId"`
	CancelledPrompts []string `json:"cancelledPrompts"`
}

// tell says on stderr what the import did not take from the bundle as it
// was, so that nobody wonders where a server or a run went.
func (a importAnswer) tell(stderr io.Writer) {
	note := func(format string, args ...any) {
		fmt.Fprintf(stderr, "troupe session import: "+format+"\n", args...)
	}
	if s := a.Sanitized; s != nil {
		if len(s.MCPServers) > 0 {
			note("the bundle's MCP servers were not kept: %s", strings.Join(s.MCPServers, ", "))
		}
		if s.ApprovalMode != "" {
			note("the bundle's approval mode %s was lowered to this daemon's default", s.ApprovalMode)
		}
		if s.CrashPolicy != "" {
			note("the bundle's crash policy %s was replaced by this daemon's", s.CrashPolicy)
		}
		if s.AllowAlways > 0 {
			note("the bundle's %d \"always allow\" decision(s) count here as allow once", s.AllowAlways)
		}
		if len(s.AdditionalDirs) > 0 {
			note("the bundle's additional directories were left out (not directories here): %s", strings.Join(s.AdditionalDirs, ", "))
		}
	}
	if a.InterruptedRunID != "" {
		note("run %s was in flight in the bundle: it is closed as interrupted, not resumed", a.InterruptedRunID)
	}
	if n := len(a.CancelledPrompts); n > 0 {
		note("%d prompt(s) waiting in the bundle were cancelled, not run", n)
	}
}
