package main

import (
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// session diff shows each change as a unified line diff with the file's
// lines around it, not the edit's two strings (issue 25, item 22): a
// write's whole new file, then an edit of one line among others.
func TestSessionDiffIsAUnifiedDiffWithContext(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.ToolCall("c1", "write", toolArgs(t, map[string]string{"path": "f.txt", "content": "one\ntwo\nthree\nfour\nfive\n"}))),
		llmserver.Steps(llmserver.ToolCall("c2", "edit", toolArgs(t, map[string]string{"path": "f.txt", "old_string": "three", "new_string": "THREE"}))),
		llmserver.Steps(llmserver.Text("done")),
	)
	d := startDaemon(t, home, env, append(model, "--approval-mode", event.ApprovalYolo)...)
	sid := d.create(t, work)
	env = append(env, "TROUPE_HOME="+home)
	testkit.Equal(t, cli(t, env, "", "session", "prompt", sid, "number the lines").ok(t, "prompt"), "done\n")

	got := cli(t, env, "", "session", "diff", sid).ok(t, "session diff")
	want := "=== " + filepath.Join(work, "f.txt") + " (created)\n" +
		"@@ -0,0 +1,5 @@\n+one\n+two\n+three\n+four\n+five\n" +
		"@@ -1,5 +1,5 @@\n one\n two\n-three\n+THREE\n four\n five\n"
	testkit.Equal(t, got, want)
}
