package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect serves newServer(opts) in memory and returns a client session.
func connect(t *testing.T, opts options) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, opts, nil)
}

func connectWith(t *testing.T, opts options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer(opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content %#v, want one text", res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

func TestTools(t *testing.T) {
	dir := t.TempDir()
	cs := connect(t, options{callsDir: dir, pageSize: 2})

	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if len(names) != 11 {
		t.Errorf("tools %v, want 11 across pages", names)
	}

	if got := textOf(t, call(t, cs, "echo", map[string]any{"text": "hi"})); got != "echo:hi" {
		t.Errorf("echo: %q", got)
	}
	add := call(t, cs, "add", map[string]any{"a": 2, "b": 3.5})
	if got := textOf(t, add); got != "5.5" {
		t.Errorf("add: %q", got)
	}
	if sum, _ := add.StructuredContent.(map[string]any)["sum"].(float64); sum != 5.5 {
		t.Errorf("add structured: %#v", add.StructuredContent)
	}
	fail := call(t, cs, "fail", nil)
	if !fail.IsError || textOf(t, fail) != "fail: requested failure" {
		t.Errorf("fail: %#v", fail)
	}

	for name, want := range map[string]int{"echo": 1, "add": 1, "fail": 1, "sleep": 0} {
		got, _ := filepath.Glob(filepath.Join(dir, name+"-*.call"))
		if len(got) != want {
			t.Errorf("%s markers: %d, want %d", name, len(got), want)
		}
	}
}

func TestSleepCancelled(t *testing.T) {
	dir := t.TempDir()
	cs := connect(t, options{callsDir: dir})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 60000}}); err == nil {
		t.Fatal("sleep returned before its deadline")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ := filepath.Glob(filepath.Join(dir, "cancelled-sleep-*.call"))
		if len(got) == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the cancellation")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunRejectsArguments(t *testing.T) {
	if err := run(context.Background(), []string{"extra"}, io.Discard); err == nil {
		t.Fatal("run accepted a positional argument")
	}
}

func TestProgressNotifies(t *testing.T) {
	got := make(chan string, 10)
	cs := connectWith(t, options{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			got <- fmt.Sprintf("%v %g/%g %s", req.Params.ProgressToken, req.Params.Progress, req.Params.Total, req.Params.Message)
		},
	})
	params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 2, "ms": 1}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if textOf(t, res) != "done after 2 steps" {
		t.Errorf("progress answered %q", textOf(t, res))
	}
	for _, want := range []string{"tok 1/2 step 1", "tok 2/2 step 2"} {
		select {
		case n := <-got:
			if n != want {
				t.Errorf("notification %q, want %q", n, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no notification %q", want)
		}
	}
}

func TestAddToolSendsListChanged(t *testing.T) {
	changed := make(chan struct{}, 4)
	cs := connectWith(t, options{}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	// add_tool answers once the client lists again, so list in parallel
	// when told.
	go func() {
		<-changed
		for range cs.Tools(context.Background(), nil) {
		}
	}()
	if got := textOf(t, call(t, cs, "add_tool", map[string]any{"name": "fresh"})); got != "added fresh" {
		t.Fatalf("add_tool: %q", got)
	}
	if got := textOf(t, call(t, cs, "fresh", nil)); got != "added:fresh" {
		t.Fatalf("fresh: %q", got)
	}
}

func TestRefuse(t *testing.T) {
	err := run(context.Background(), []string{"-refuse"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "refusing to start") {
		t.Fatalf("run -refuse: %v", err)
	}
}
