package terminal

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// maxChangeLines bounds the diff a permission request shows: a write of
// a long file is cut, saying how much was left out.
const maxChangeLines = 40

// changeArgs are the arguments of the edit and write tools that say what
// they change (edit's two spellings included).
type changeArgs struct {
	Path      string  `json:"path"`
	FilePath  string  `json:"file_path"`
	OldString *string `json:"old_string"`
	NewString *string `json:"new_string"`
	OldText   *string `json:"oldText"`
	NewText   *string `json:"newText"`
	Content   *string `json:"content"`
}

// change is the unified diff a call's arguments describe: an edit's old
// text to its new, or a write's content as added lines; "" for a call
// that changes no file's text. The file itself is not read: the client
// may run on another machine than the daemon.
func change(raw json.RawMessage) string {
	var a changeArgs
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	path := strings.TrimPrefix(filepath.ToSlash(a.Path+a.FilePath), "/")
	if path == "" {
		return ""
	}
	old, neu := a.OldString, a.NewString
	if old == nil {
		old, neu = a.OldText, a.NewText
	}
	var d string
	switch {
	case old != nil && neu != nil:
		d = udiff.Unified("a/"+path, "b/"+path, line(*old), line(*neu))
	case a.Content != nil:
		d = udiff.Unified("a/"+path, "b/"+path, "", line(*a.Content))
	}
	return cut(bodyLines(d), maxChangeLines)
}

// line ends a snippet with a line break, so that a diff of two snippets
// does not say "no newline at end of file" of a file it never saw.
func line(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// bodyLines is a diff's changed and context lines: its header and hunk
// headers are left out, since the question names the file and the
// snippet's line numbers are not the file's.
func bodyLines(d string) string {
	if i := strings.Index(d, "@@"); i > 0 {
		d = d[i:] // the header is what precedes the first hunk
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(d, "\n") {
		if strings.HasPrefix(l, "@@") {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// cut keeps a diff's first max lines, saying how many more there were.
func cut(d string, max int) string {
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if d == "" || len(lines) <= max {
		return d
	}
	return strings.Join(lines[:max], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-max)
}
