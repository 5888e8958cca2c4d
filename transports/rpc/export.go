package rpc

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// exportHTML writes the conversation as one self-contained HTML file (no
// scripts, no external assets). The page is rendered in the actor from the
// fold; only the file write runs off the mailbox.
func (c *conn) exportHTML(cmd Command) {
	f := c.cur.fold
	path := cmp.Or(cmd.OutputPath, filepath.Join(f.Cwd, "troupe-session-"+c.cur.id+".html"))
	if !filepath.IsAbs(path) && f.Cwd != "" {
		path = filepath.Join(f.Cwd, path)
	}
	var buf bytes.Buffer
	title := cmp.Or(f.Title, "troupe session "+c.cur.id)
	if err := page().Execute(&buf, pageData{Title: title, Session: c.cur.id, Messages: rows(f.messages)}); err != nil {
		c.respond(Fail(cmd.ID, cmd.Type, fmt.Sprintf("render html: %v", err)))
		return
	}
	data := buf.Bytes()
	done := c.begin()
	offload(c, func() error { return os.WriteFile(path, data, 0o644) }, func(err error) {
		if err != nil {
			done(&result{resp: Fail(cmd.ID, cmd.Type, fmt.Sprintf("write %s: %v", path, err))})
			return
		}
		done(&result{resp: OK(cmd.ID, cmd.Type, map[string]string{"path": path})})
	})
}

type pageData struct {
	Title, Session string
	Messages       []row
}

type row struct {
	Role, Class, When string
	Parts             []string
}

func rows(msgs []any) []row {
	var out []row
	when := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05 UTC") }
	for _, m := range msgs {
		switch m := m.(type) {
		case *userMessage:
			out = append(out, row{Role: "User", Class: "user", When: when(m.Timestamp), Parts: []string{m.text}})
		case *assistantMessage:
			r := row{Role: "Assistant", Class: "assistant", When: when(m.Timestamp)}
			for _, b := range m.Content {
				switch b := b.(type) {
				case thinkingBlock:
					r.Parts = append(r.Parts, "(thinking) "+b.Thinking)
				case textBlock:
					r.Parts = append(r.Parts, b.Text)
				case toolCallBlock:
					r.Parts = append(r.Parts, "→ "+b.Name+" "+string(b.Arguments))
				}
			}
			out = append(out, r)
		case *toolResultMessage:
			r := row{Role: "Tool result: " + m.ToolName, Class: "tool", When: when(m.Timestamp)}
			for _, b := range m.Content {
				if t, ok := b.(textBlock); ok {
					r.Parts = append(r.Parts, t.Text)
				}
			}
			out = append(out, r)
		case *bashMessage:
			out = append(out, row{Role: "Bash: " + m.Command, Class: "tool", When: when(m.Timestamp), Parts: []string{m.Output, fmt.Sprintf("exit code %d", m.ExitCode)}})
		case *summaryMessage:
			out = append(out, row{Role: "Compaction summary", Class: "summary", When: when(m.Timestamp), Parts: []string{m.Summary}})
		default:
			b, _ := json.Marshal(m)
			out = append(out, row{Role: "Message", Class: "other", Parts: []string{string(b)}})
		}
	}
	return out
}

// page is parsed on the first export, not at start-up.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#222;background:#fafafa}
.msg{border-radius:6px;padding:.6rem .9rem;margin:.8rem 0;background:#fff;border-left:4px solid #999}
.user{border-color:#2a6}.assistant{border-color:#36c}.tool{border-color:#c83}.summary{border-color:#888;background:#eee}
.role{font-weight:600;font-size:.85rem}.when{color:#888;font-size:.75rem;margin-left:.5rem}
pre{white-space:pre-wrap;word-wrap:break-word;margin:.4rem 0;font:.85rem/1.4 ui-monospace,monospace}
</style></head><body>
<h1>{{.Title}}</h1><p class="when">session {{.Session}}</p>
{{range .Messages}}<div class="msg {{.Class}}"><span class="role">{{.Role}}</span><span class="when">{{.When}}</span>{{range .Parts}}<pre>{{.}}</pre>{{end}}</div>
{{end}}</body></html>
`))
})
