package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/httpjson"
)

// fileDiff is one file's changes, as `hydra session diff --json` shows them.
type fileDiff struct {
	Path    string `json:"path"`
	Hunks   []hunk `json:"hunks"`
	Created bool   `json:"created"`
}

type hunk struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
	// Diff is the change as a unified line diff: the edit tool's own,
	// with the file's lines around it as context, else one made from the
	// two texts (a write's whole file; a folded hunk). Hydra's shape has
	// no such field; its clients ignore it.
	Diff string `json:"diff,omitempty"`
}

// editArgs are the arguments of the edit and write tools (edit's two
// spellings included).
type editArgs struct {
	Path      string  `json:"path"`
	OldString *string `json:"old_string"`
	NewString *string `json:"new_string"`
	OldText   *string `json:"oldText"`
	NewText   *string `json:"newText"`
	Content   *string `json:"content"`
}

// differ folds successful edit and write calls into per-file hunks. The
// workspace is never read: a write's old text is the last content this
// session wrote there, and a file is created when a write is the first
// change the session made to it.
type differ struct {
	cwd     string
	started map[string]event.ToolStartedPayload
	files   map[string]*fileDiff
	order   []string
	written map[string]string // last full content written, by path
}

func (d *differ) add(e event.Event) error {
	switch e.Kind {
	case event.ToolStarted:
		var p event.ToolStartedPayload
		if e.Decode(&p) == nil && (p.Name == "edit" || p.Name == "write") {
			d.started[p.ToolCallID] = p
		}
	case event.ToolCompleted:
		var p event.ToolCompletedPayload
		if e.Decode(&p) != nil {
			return nil
		}
		call, ok := d.started[p.ToolCallID]
		delete(d.started, p.ToolCallID)
		if ok && p.Status == "success" {
			d.apply(call, p)
		}
	}
	return nil
}

func (d *differ) apply(call event.ToolStartedPayload, done event.ToolCompletedPayload) {
	var args editArgs
	if json.Unmarshal([]byte(call.Arguments), &args) != nil || args.Path == "" {
		return
	}
	path := args.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(d.cwd, path)
	}
	path = filepath.Clean(path)
	f := d.files[path]
	if f == nil {
		f = &fileDiff{Path: path, Hunks: []hunk{}, Created: call.Name == "write"}
		d.files[path] = f
		d.order = append(d.order, path)
	}
	switch call.Name {
	case "write":
		if args.Content == nil {
			return
		}
		f.Hunks = append(f.Hunks, d.hunk(path, d.written[path], *args.Content, ""))
		d.written[path] = *args.Content
	case "edit":
		old, neu := args.OldString, args.NewString
		if old == nil {
			old, neu = args.OldText, args.NewText
		}
		if old == nil || neu == nil {
			return
		}
		toolDiff := ""
		if done.OutputType == "diff" {
			toolDiff = done.Output
		}
		f.Hunks = append(f.Hunks, d.hunk(path, *old, *neu, toolDiff))
		if w, ok := d.written[path]; ok {
			d.written[path] = strings.Replace(w, *old, *neu, 1)
		}
	}
}

// hunk is a change of path from old to neu, its diff the tool's when it
// gave one.
func (d *differ) hunk(path, old, neu, toolDiff string) hunk {
	if toolDiff == "" {
		toolDiff = lineDiff(relTo(d.cwd, path), old, neu)
	}
	return hunk{OldText: old, NewText: neu, Diff: toolDiff}
}

// lineDiff is old to neu as a unified diff labelled as git labels a path.
func lineDiff(label, old, neu string) string {
	label = strings.TrimPrefix(filepath.ToSlash(label), "/")
	return udiff.Unified("a/"+label, "b/"+label, old, neu)
}

// fold merges each hunk that rewrites the text the previous one wrote
// into one net-effect hunk.
func fold(hs []hunk) []hunk {
	out := []hunk{}
	for _, h := range hs {
		if n := len(out); n > 0 && out[n-1].NewText == h.OldText {
			out[n-1].NewText = h.NewText
			out[n-1].Diff = ""
			continue
		}
		out = append(out, h)
	}
	return out
}

func (a *API) diff(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q := r.URL.Query()
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	m, err := a.cfg.Sessions.Meta(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	d := &differ{cwd: m.Cwd, started: map[string]event.ToolStartedPayload{}, files: map[string]*fileDiff{}, written: map[string]string{}}
	if err := a.conversation(ctx, id, d.add); err != nil {
		a.sessionError(w, id, err)
		return
	}
	var only []string
	if p := q.Get("paths"); p != "" {
		only = strings.Split(p, ",")
	}
	out := []fileDiff{}
	for _, path := range d.order {
		f := *d.files[path]
		if only != nil && !slices.Contains(only, f.Path) && !slices.Contains(only, relTo(m.Cwd, f.Path)) {
			continue
		}
		if q.Get("fold") == "true" || q.Get("fold") == "1" {
			f.Hunks = fold(f.Hunks)
			for i, h := range f.Hunks {
				if h.Diff == "" {
					f.Hunks[i].Diff = lineDiff(relTo(m.Cwd, f.Path), h.OldText, h.NewText)
				}
			}
		}
		out = append(out, f)
	}
	httpjson.WriteJSON(w, http.StatusOK, out)
}

// relTo is path relative to dir when it lies under it, else path.
func relTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
