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

	"github.com/troupehq/troupe/transports/daemonclient"
)

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
	id, err := postForID(ctx, c, "/v1/sessions/import", body, *cwd)
	if err != nil {
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
	fmt.Fprintln(stdout, id)
	return 0
}
