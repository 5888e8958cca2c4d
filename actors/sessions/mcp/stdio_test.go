package mcp_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/runtime/tools"
	"github.com/troupehq/troupe/testkit"
)

func TestStdioListAndCall(t *testing.T) {
	sys := newSystem(t)
	calls, cwd := t.TempDir(), t.TempDir()
	cfg := stdio(t, "test", "-calls", calls, "-page-size", "3")
	cfg.Env = []mcp.EnvVariable{{Name: "TROUPE_MCP_TEST", Value: "set"}}
	pid := spawn(t, sys, mcp.Props(cfg, cwd))

	byName := mustTools(t, sys, pid)
	want := []string{"test__add", "test__add_tool", "test__crash", "test__cwd", "test__echo", "test__env", "test__fail", "test__mixed", "test__pid", "test__progress", "test__sleep"}
	if got := names(byName); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v (all pages)", got, want)
	}
	echo := byName["test__echo"]
	if echo.Category() != tools.CategoryMCP {
		t.Errorf("category %q", echo.Category())
	}
	if !strings.Contains(string(echo.Parameters()), `"text"`) || echo.Description() == "" {
		t.Errorf("echo schema %s, description %q", echo.Parameters(), echo.Description())
	}

	if r := run(t, echo, `{"text":"hi"}`); r.IsError || r.Output != "echo:hi" {
		t.Errorf("echo: %+v", r)
	}
	if r := run(t, byName["test__add"], `{"a":2,"b":3}`); r.IsError || r.Output != "5" {
		t.Errorf("add: %+v", r)
	}
	if r := run(t, byName["test__env"], `{"name":"TROUPE_MCP_TEST"}`); r.Output != "set" {
		t.Errorf("env: %+v", r)
	}
	wantCwd, _ := filepath.EvalSymlinks(cwd)
	if r := run(t, byName["test__cwd"], ``); r.Output != wantCwd {
		t.Errorf("cwd: %q, want %q", r.Output, wantCwd)
	}
	if n := markers(t, calls, "echo"); n != 1 {
		t.Errorf("echo ran %d times, want 1", n)
	}
}

func TestStdioErrorsAndContent(t *testing.T) {
	sys := newSystem(t)
	calls := t.TempDir()
	pid := spawn(t, sys, mcp.Props(stdio(t, "test", "-calls", calls), t.TempDir()))
	byName := mustTools(t, sys, pid)

	r := run(t, byName["test__fail"], `{}`)
	if !r.IsError || r.Output != "fail: requested failure" {
		t.Errorf("fail: %+v", r)
	}

	r = run(t, byName["test__echo"], `[1]`)
	if !r.IsError || !strings.Contains(r.Output, "arguments must be a JSON object") {
		t.Errorf("array arguments: %+v", r)
	}
	if n := markers(t, calls, "echo"); n != 0 {
		t.Errorf("echo ran %d times with bad arguments", n)
	}

	r = run(t, byName["test__mixed"], `{}`)
	for _, want := range []string{
		"first",
		"[image image/png, ",
		"[resource file:///notes.txt]\nnote body",
		"[resource file:///blob.bin application/octet-stream, 3 bytes]",
		`[resource link file:///linked.md "linked"]`,
	} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("mixed output %q lacks %q", r.Output, want)
		}
	}
}

func TestStdioConcurrentCalls(t *testing.T) {
	sys := newSystem(t)
	pid := spawn(t, sys, mcp.Props(stdio(t, "test"), t.TempDir()))
	echo := mustTools(t, sys, pid)["test__echo"]
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			want := "echo:" + strconv.Itoa(i)
			if r := run(t, echo, `{"text":"`+strconv.Itoa(i)+`"}`); r.Output != want {
				t.Errorf("call %d: %+v", i, r)
			}
		})
	}
	wg.Wait()
}

func TestStdioCancel(t *testing.T) {
	sys := newSystem(t)
	calls := t.TempDir()
	pid := spawn(t, sys, mcp.Props(stdio(t, "test", "-calls", calls), t.TempDir()))
	byName := mustTools(t, sys, pid)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	r, err := byName["test__sleep"].Run(ctx, tools.Call{Args: []byte(`{"ms":60000}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("cancelled call took %s", took)
	}
	if !r.IsError || r.Metadata[tools.MetaCancelled] != true {
		t.Errorf("cancelled call: %+v", r)
	}
	testkit.Eventually(t, 5*time.Second, "server saw the cancellation", func() bool {
		return markers(t, calls, "cancelled-sleep") == 1
	})
	if r := run(t, byName["test__echo"], `{"text":"after"}`); r.Output != "echo:after" {
		t.Errorf("call after a cancelled one: %+v", r)
	}
}

func TestConnectFailure(t *testing.T) {
	sys := newSystem(t)
	cases := []struct {
		name string
		cfg  mcp.ServerConfig
		want []string
	}{
		{"missing command", mcp.ServerConfig{Name: "ghost", Command: filepath.Join(t.TempDir(), "no-such-server")},
			[]string{`mcp server "ghost"`, "no such file"}},
		{"exits at once", mcp.ServerConfig{Name: "quitter", Command: "sh", Args: []string{"-c", "echo cannot start: bad token >&2; exit 3"}},
			[]string{`mcp server "quitter"`, "cannot start: bad token"}},
		{"unsupported transport", mcp.ServerConfig{Name: "ws", Type: "websocket", URL: "ws://127.0.0.1:1"},
			[]string{`mcp server "ws"`, `unsupported transport "websocket"`}},
		{"refused", mcp.ServerConfig{Name: "down", Type: "http", URL: "http://127.0.0.1:1/mcp"},
			[]string{`mcp server "down"`, "connect"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reply := getTools(t, sys, spawn(t, sys, mcp.Props(tc.cfg, t.TempDir())))
			if reply.Err == nil || len(reply.Tools) != 0 {
				t.Fatalf("reply %+v, want an error and no tools", reply)
			}
			for _, w := range tc.want {
				if !strings.Contains(reply.Err.Error(), w) {
					t.Errorf("error %q lacks %q", reply.Err, w)
				}
			}
		})
	}
}
