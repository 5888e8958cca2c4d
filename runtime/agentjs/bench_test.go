package agentjs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/runtime/agentpkg"
)

// BenchmarkCall is one tool call through the VM: the phase, the event
// loop run to idle, the result read back. sync returns at once; async
// awaits a resolved promise; command awaits run_command("true"), a
// process started and reaped under runtime/proc.
func BenchmarkCall(b *testing.B) {
	dir := b.TempDir()
	src := `
register_tool({name: "sync", execute: function (a) { return a; }});
register_tool({name: "async", execute: async function (a) { return await Promise.resolve(a); }});
register_tool({name: "command", execute: async function () { return await run_command("true"); }});
`
	if err := os.WriteFile(filepath.Join(dir, "main.js"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := New(Config{Dir: dir, Cwd: dir, Permissions: agentpkg.Permissions{Shell: agentpkg.Shell{Commands: []string{"true"}}}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Load("main.js"); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"sync", "async", "command"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := r.Call(name, `{"x":1}`); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
