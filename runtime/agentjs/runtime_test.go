package agentjs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/agentpkg"
)

// load writes main.js into a fresh package folder and loads it.
func load(t *testing.T, src string, p agentpkg.Permissions) (*Runtime, Setup, error, *[]string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var printed []string
	r, err := New(Config{Dir: dir, Cwd: dir, Permissions: p, Print: func(s string, _ bool) {
		mu.Lock()
		printed = append(printed, s)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	s, err := r.Load("main.js")
	return r, s, err, &printed
}

func TestLoadRegistersToolsAndPrompt(t *testing.T) {
	_, s, err, printed := load(t, `
set_system_prompt("You search.");
set_max_turns(4);
register_tool({name: "echo", description: "Echo it.", parameters: {type: "object", properties: {text: {type: "string"}}}, execute: function(a) { return a; }});
print("loaded", hugind_version());
`, agentpkg.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.SystemPrompt != "You search." || s.MaxTurns != 4 || len(s.Tools) != 1 || s.Tools[0].Name != "echo" {
		t.Fatalf("setup %+v", s)
	}
	if string(s.Tools[0].Parameters) != `{"properties":{"text":{"type":"string"}},"type":"object"}` {
		t.Errorf("parameters %s", s.Tools[0].Parameters)
	}
	if got := strings.Join(*printed, "|"); got != "loaded 1.0.0" {
		t.Errorf("printed %q", got)
	}
}

func TestTopLevelThrowIsReported(t *testing.T) {
	_, _, err, _ := load(t, "register_tool({name: 'x', execute: function(){}});\nthrow new Error('no config found');\n", agentpkg.Permissions{})
	if err == nil || !strings.Contains(err.Error(), "no config found") || !strings.Contains(err.Error(), "main.js:2") {
		t.Fatalf("err %v, want the throw with its line", err)
	}
}

func TestUnhandledRejectionAtLoadIsReported(t *testing.T) {
	_, _, err, _ := load(t, "(async function(){ throw new Error('late failure'); })();", agentpkg.Permissions{})
	if err == nil || !strings.Contains(err.Error(), "unhandled promise rejection: late failure") {
		t.Fatalf("err %v", err)
	}
}

func TestCallSyncAsyncThrowing(t *testing.T) {
	r, _, err, _ := load(t, `
register_tool({name: "sync", execute: function(a) { return "got " + JSON.parse(a).x; }});
register_tool({name: "async", execute: async function(a) { await new Promise(function(res){ setTimeout(res, 10); }); return {n: 2}; }});
register_tool({name: "throws", execute: function() { throw new Error("bad path"); }});
register_tool({name: "rejects", execute: async function() { throw new Error("later"); }});
register_tool({name: "empty", execute: function() {}});
`, agentpkg.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, args, want string }{
		{"sync", `{"x":1}`, "got 1"},
		{"async", `{}`, `{"n":2}`},
		{"throws", `{}`, "Error: bad path"},
		{"rejects", `{}`, "Error: later"},
		{"empty", `{}`, "OK"},
		{"nope", `{}`, "Error: unknown tool nope"},
	} {
		got, err := r.Call(c.name, c.args)
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestPermissionsDenied(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _, err, _ := load(t, `
function attempt(f) { try { return String(f()); } catch (e) { return "Error: " + e.message; } }
register_tool({name: "read", execute: function(a) { return attempt(function(){ return fs.read_text(JSON.parse(a).path); }); }});
register_tool({name: "write", execute: function(a) { return attempt(function(){ return fs.write_text(JSON.parse(a).path, "x"); }); }});
register_tool({name: "sh", execute: async function(a) { return await run_command(JSON.parse(a).cmd); }});
register_tool({name: "net", execute: async function(a) { return await http_get(JSON.parse(a).url); }});
`, agentpkg.Permissions{Filesystem: agentpkg.Filesystem{Read: []string{"."}}, Shell: agentpkg.Shell{Commands: []string{"echo"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, args, want string }{
		{"read", `{"path":"main.js"}`, "register_tool"},
		{"read", `{"path":"` + filepath.Join(outside, "secret") + `"}`, "Error: permission denied: fs read of"},
		{"read", `{"path":"../x"}`, "Error: permission denied: fs read"},
		{"write", `{"path":"out.txt"}`, "Error: permission denied: fs write of out.txt is outside permissions.filesystem.write"},
		{"sh", `{"cmd":"echo hi"}`, "hi\n"},
		{"sh", `{"cmd":"rm -rf /"}`, `Error: permission denied: command "rm" is not in permissions.shell.commands`},
		{"sh", `{"cmd":"echo hi; rm x"}`, "Error: permission denied: shell syntax"},
		{"net", `{"url":"http://127.0.0.1:1/"}`, "Error: permission denied: network access to 127.0.0.1:1"},
	} {
		got, err := r.Call(c.name, c.args)
		if err != nil || !strings.Contains(got, c.want) {
			t.Errorf("%s %s: %q, %v; want %q in it", c.name, c.args, got, err, c.want)
		}
	}
}

func TestInterruptStopsAnInfiniteLoop(t *testing.T) {
	r, _, err, _ := load(t, `register_tool({name: "spin", execute: function() { for (;;) {} }});`, agentpkg.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Call("spin", "{}")
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the loop start spinning; the interrupt works either way
	r.Interrupt("cancelled")
	select {
	case err := <-done:
		if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("err %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupt did not stop the loop")
	}
}

func TestInterruptStopsAPendingCommand(t *testing.T) {
	r, _, err, _ := load(t, `register_tool({name: "wait", execute: async function() { return await run_command("sleep 30"); }});`,
		agentpkg.Permissions{Shell: agentpkg.Shell{Commands: []string{"sleep"}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Call("wait", "{}")
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	r.Interrupt("time limit")
	select {
	case err := <-done:
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("err %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupt did not end the command")
	}
}

func TestFetchAllowedHostAndAskLLM(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Echo", r.Method)
		_, _ = fmt.Fprintf(w, `{"method":%q,"body":%q}`, r.Method, body)
	}))
	defer srv.Close()
	dir := t.TempDir()
	src := `
register_tool({name: "get", execute: async function(a) { return await http_get(JSON.parse(a).url); }});
register_tool({name: "post", execute: async function(a) { return await http_post(JSON.parse(a).url, "hi"); }});
register_tool({name: "fetch", execute: async function(a) {
  var r = await fetch(JSON.parse(a).url, {method: "PUT", body: "x"});
  return r.status + " " + r.ok + " " + r.headers["x-echo"] + " " + r.json().body;
}});
register_tool({name: "ask", execute: async function() { return await ask_llm("capital of France?"); }});
`
	if err := os.WriteFile(filepath.Join(dir, "main.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Dir: dir, Cwd: dir, Permissions: agentpkg.Permissions{Network: agentpkg.Network{Hosts: []string{"127.0.0.1"}}},
		AskLLM: func(_ context.Context, prompt string) (string, error) { return "asked: " + prompt, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Load("main.js"); err != nil {
		t.Fatal(err)
	}
	args := `{"url":"` + srv.URL + `"}`
	for _, c := range []struct{ name, want string }{
		{"get", `{"method":"GET","body":""}`},
		{"post", `{"method":"POST","body":"hi"}`},
		{"fetch", "200 true PUT x"},
		{"ask", "asked: capital of France?"},
	} {
		got, err := r.Call(c.name, args)
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestMemoryAndToolResults(t *testing.T) {
	r, _, err, _ := load(t, `
memory.set("k", {n: [1, 2]});
register_tools_json('[{"name": "described", "description": "No execute."}]');
register_tool({name: "recall", execute: function() { return memory.get("k").n.length + " " + get_tool_results(); }});
`, agentpkg.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	r.SetLastResults([]ToolResult{{Name: "described", Result: "Error: tool described has no execute"}})
	if got, _ := r.Call("recall", "{}"); got != `2 [{"name":"described","result":"Error: tool described has no execute"}]` {
		t.Errorf("recall: %q", got)
	}
	if got, _ := r.Call("described", "{}"); got != "Error: tool described has no execute" {
		t.Errorf("described: %q", got)
	}
}
