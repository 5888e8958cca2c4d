package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// bridge is a running `troupe stdio` on a fresh home holding the tiny
// model as aladar/tiny, with the fake llama-server first on its PATH.
type bridge struct {
	t    *testing.T
	p    *testkit.Proc
	home string
	env  []string
	// early holds lines read while looking for another request's.
	early []map[string]any
}

func startBridge(t *testing.T) *bridge {
	t.Helper()
	home := t.TempDir()
	model, err := os.ReadFile("../../runtime/gguf/testdata/tiny-llama-random.gguf")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "models", "aladar", "tiny")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny.gguf"), model, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(testkit.BuildFakeLlamaServer(t), filepath.Join(bin, "llama-server")); err != nil {
		t.Fatal(err)
	}
	env := []string{"TROUPE_HOME=" + home, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	return &bridge{t: t, p: testkit.Start(t, testkit.BuildTroupe(t), env, "stdio"), home: home, env: env}
}

// again starts another `troupe stdio` on b's home, after b ended.
func (b *bridge) again() *bridge {
	b.t.Helper()
	return &bridge{t: b.t, p: testkit.Start(b.t, testkit.BuildTroupe(b.t), b.env, "stdio"), home: b.home, env: b.env}
}

func (b *bridge) send(line string) {
	b.t.Helper()
	if _, err := b.p.Stdin.Write([]byte(line + "\n")); err != nil {
		b.t.Fatal(err)
	}
}

func (b *bridge) next() map[string]any {
	b.t.Helper()
	line, ok := b.p.ReadLine(20 * time.Second)
	if !ok {
		b.t.Fatalf("no line from troupe stdio; stderr:\n%s", b.p.Stderr())
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		b.t.Fatalf("line %q is not a JSON object: %v", line, err)
	}
	if m["schema_version"] != "1" {
		b.t.Fatalf("line without schema_version 1: %s", line)
	}
	return m
}

// answer reads up to request id's response, returning it and the events
// it had before it; other requests' lines are kept for later.
func (b *bridge) answer(id string) (map[string]any, []map[string]any) {
	b.t.Helper()
	var events []map[string]any
	for {
		m := b.take(id)
		if _, ok := m["event"]; ok {
			events = append(events, m)
			continue
		}
		return m, events
	}
}

// take is request id's next line: kept from before, or read now.
func (b *bridge) take(id string) map[string]any {
	b.t.Helper()
	for i, m := range b.early {
		if m["id"] == id {
			b.early = append(b.early[:i], b.early[i+1:]...)
			return m
		}
	}
	for {
		m := b.next()
		if m["id"] == id {
			return m
		}
		b.early = append(b.early, m)
	}
}

func (b *bridge) call(id, method, params string) (map[string]any, []map[string]any) {
	b.t.Helper()
	b.send(fmt.Sprintf(`{"id":%q,"method":%q,"params":%s}`, id, method, params))
	return b.answer(id)
}

func result(t *testing.T, resp map[string]any) map[string]any {
	t.Helper()
	if resp["ok"] != true {
		t.Fatalf("request failed: %v", resp)
	}
	return resp["result"].(map[string]any)
}

func errorCode(resp map[string]any) string {
	if e, ok := resp["error"].(map[string]any); ok && resp["ok"] == false {
		return fmt.Sprint(e["code"], ": ", e["message"])
	}
	return fmt.Sprint("not an error: ", resp)
}

func TestStdioConfigsModelsAndServers(t *testing.T) {
	b := startBridge(t)
	show := result(t, first(b.call("1", "model.show", `{"repo":"aladar/tiny"}`)))
	g := show["files"].([]any)[0].(map[string]any)["gguf"].(map[string]any)
	if g["architecture"] != "llama" || g["block_count"] != 1.0 || g["vocab_size"] != 32000.0 {
		t.Fatalf("model.show: %v", g)
	}
	if repos := result(t, first(b.call("2", "model.list", `{}`)))["repos"].([]any); len(repos) != 1 {
		t.Fatalf("model.list: %v", repos)
	}
	init := result(t, first(b.call("3", "config.init", `{"name":"tiny","model_path":"aladar/tiny/tiny.gguf","n_slots":2}`)))
	if c := init["config"].(map[string]any); c["ctx"] != 4096.0 || c["n_slots"] != 2.0 {
		t.Fatalf("config.init: %v", init)
	}
	if v := result(t, first(b.call("4", "config.validate", `{"path":"tiny"}`))); v["valid"] != true {
		t.Fatalf("config.validate: %v", v)
	}
	info := result(t, first(b.call("5i", "config.info", `{}`)))
	if info["models_dir"] != filepath.Join(b.home, "models") || info["memory_bytes"].(float64) <= 0 || !strings.HasSuffix(info["llama_server"].(string), "llama-server") {
		t.Fatalf("config.info: %v", info)
	}
	if l := result(t, first(b.call("5", "config.list", `{}`)))["configs"].([]any); len(l) != 1 {
		t.Fatalf("config.list: %v", l)
	}

	resp, events := b.call("6", "server.start", `{"config":"tiny"}`)
	started := result(t, resp)
	if len(events) != 1 || events[0]["data"].(map[string]any)["status"] != "started" {
		t.Fatalf("server.start events %v", events)
	}
	pid := int(started["pid"].(float64))
	health, err := http.Get("http://127.0.0.1:" + strconv.Itoa(int(started["port"].(float64))) + "/health")
	if err != nil || health.StatusCode != 200 {
		t.Fatalf("the started server's /health: %v %v", health, err)
	}
	health.Body.Close()
	if l := result(t, first(b.call("7", "server.list", `{}`)))["servers"].([]any); len(l) != 1 || l[0].(map[string]any)["status"] != "started" {
		t.Fatalf("server.list: %v", l)
	}
	resp, events = b.call("8", "server.stop", `{"config":"tiny"}`)
	if result(t, resp)["status"] != "stopped" || len(events) != 1 {
		t.Fatalf("server.stop: %v %v", resp, events)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Fatalf("pid %d is still in /proc after server.stop", pid)
	}
	if r := result(t, first(b.call("9", "config.remove", `{"name":"tiny","confirm":true}`))); r["removed"] != true {
		t.Fatalf("config.remove: %v", r)
	}
	r := result(t, first(b.call("10", "model.remove", `{"repo":"aladar/tiny","delete_repo":true}`)))
	if r["deleted_repo"] != true {
		t.Fatalf("model.remove: %v", r)
	}
	b.p.Stdin.Close()
	if code := b.p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func first(m map[string]any, _ []map[string]any) map[string]any { return m }

func TestStdioErrorsKeepItServing(t *testing.T) {
	b := startBridge(t)
	for _, c := range []struct{ line, id, want string }{
		{`{"id":"1","method":"model.list"`, "unknown", "invalid_json"},
		{`[1,2]`, "unknown", "invalid_request"},
		{`{"method":"model.list"}`, "unknown", "invalid_request"},
		{`{"id":"a","params":{}}`, "a", "invalid_request"},
		{`{"id":"b","method":"model.show","params":{"repo":7}}`, "b", "invalid_request"},
		{`{"id":"c","method":"model.show","params":{}}`, "c", "invalid_request"},
		{`{"id":"d","method":"agent.sync","params":{}}`, "d", "internal_error: Unknown method"},
		{`{"id":"e","method":"agent.run","params":{"path":"x"}}`, "e", "internal_error: no such agent: x"},
		{`{"id":"f","method":"model.show","params":{"repo":"no/such"}}`, "f", "internal_error"},
		{`{"id":"g","method":"config.remove","params":{"name":"x"}}`, "g", "invalid_request"},
	} {
		b.send(c.line)
		resp := b.next()
		if resp["id"] != c.id || !strings.HasPrefix(errorCode(resp), c.want) {
			t.Errorf("%s: got %v, want %s with id %s", c.line, resp, c.want, c.id)
		}
	}
	if resp, _ := b.call("z", "config.list", `{}`); resp["ok"] != true {
		t.Fatalf("after the errors: %v", resp)
	}
}

// A slow model.add does not hold up server.list; its progress is monotonic
// and the file lands verified.
func TestStdioRequestsRunConcurrently(t *testing.T) {
	body := make([]byte, 3<<20)
	for i := range body {
		body[i] = byte(i * 7)
	}
	sum := sha256.Sum256(body)
	release := make(chan struct{})
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body[:1<<20])
		w.(http.Flusher).Flush()
		<-release // the rest only once server.list was answered
		_, _ = w.Write(body[1<<20:])
	}))
	defer hub.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	b := startBridge(t)
	result(t, first(b.call("d", "config.defaults", fmt.Sprintf(`{"hf_token":"hf_x","hf_endpoint":%q}`, hub.URL))))
	b.send(`{"id":"add","method":"model.add","params":{"repo":"o/r","files":["big.gguf"]}}`)
	testkit.Eventually(t, 10*time.Second, "part of the download", func() bool {
		st, err := os.Stat(filepath.Join(b.home, "models", "o", "r", "big.gguf.part"))
		return err == nil && st.Size() >= 1<<20
	})
	list, _ := b.call("l", "server.list", `{}`)
	if list["ok"] != true {
		t.Fatalf("server.list during model.add: %v", list)
	}
	close(release)
	resp, events := b.answer("add")
	if resp["ok"] != true {
		t.Fatalf("model.add: %v", resp)
	}
	var last float64
	progress := 0
	for _, e := range events {
		if e["event"] != "progress" {
			continue
		}
		progress++
		n := e["data"].(map[string]any)["downloaded"].(float64)
		if n < last {
			t.Fatalf("progress went back: %v", events)
		}
		last = n
	}
	if progress < 3 || last != float64(len(body)) || events[0]["event"] != "status" || events[len(events)-1]["event"] != "status" {
		t.Fatalf("model.add events %v", events)
	}
	got, err := os.ReadFile(filepath.Join(b.home, "models", "o", "r", "big.gguf"))
	if err != nil || sha256.Sum256(got) != sum {
		t.Fatalf("downloaded file: %v", err)
	}
}

// Closing stdin with a server running stops it: nothing is left behind.
func TestStdioEOFStopsItsServers(t *testing.T) {
	b := startBridge(t)
	result(t, first(b.call("1", "config.init", `{"name":"tiny","model_path":"aladar/tiny/tiny.gguf"}`)))
	pid := int(result(t, first(b.call("2", "server.start", `{"config":"tiny"}`)))["pid"].(float64))
	b.p.Stdin.Close()
	if code := b.p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, b.p.Stderr())
	}
	testkit.Eventually(t, 5*time.Second, "the server gone", func() bool {
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		return err != nil
	})
}

// MCP JSON-RPC lines interleaved with NDJSON ones on one stdin: the SDK
// answers initialize and tools/list (a tool per method, each with a JSON
// Schema), and tools/call runs the method, its events going out as
// notifications/hugind.* carrying the call's id.
func TestStdioMCPLinesBesideNDJSON(t *testing.T) {
	b := startBridge(t)
	rpc := func(line string, id any) (map[string]any, []map[string]any) {
		t.Helper()
		b.send(line)
		var notes []map[string]any
		for {
			line, ok := b.p.ReadLine(20 * time.Second)
			if !ok {
				t.Fatalf("no answer to %s; stderr:\n%s", line, b.p.Stderr())
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("line %q among MCP answers", line)
			}
			if m["id"] == id {
				return m, notes
			}
			notes = append(notes, m)
		}
	}
	init, _ := rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, 1.0)
	if r := init["result"].(map[string]any); r["protocolVersion"] != "2025-06-18" || r["capabilities"].(map[string]any)["tools"] == nil {
		t.Fatalf("initialize: %v", init)
	}
	b.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp, _ := b.call("n1", "config.list", `{}`); resp["ok"] != true {
		t.Fatalf("NDJSON after MCP: %v", resp)
	}
	list, _ := rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 2.0)
	tools := list["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 17 {
		t.Fatalf("%d tools", len(tools))
	}
	for _, tool := range tools {
		tm := tool.(map[string]any)
		s := tm["inputSchema"].(map[string]any)
		if s["type"] != "object" || s["properties"] == nil || tm["description"] == "" {
			t.Errorf("tool %v", tm)
		}
	}
	result(t, first(b.call("n2", "config.init", `{"name":"tiny","model_path":"aladar/tiny/tiny.gguf"}`)))
	call, notes := rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"server.start","arguments":{"config":"tiny"}}}`, 3.0)
	if len(notes) != 1 || notes[0]["method"] != "notifications/hugind.status" || notes[0]["params"].(map[string]any)["id"] != 3.0 {
		t.Fatalf("notifications of server.start: %v", notes)
	}
	content := call["result"].(map[string]any)["content"].([]any)[0].(map[string]any)
	var started map[string]any
	if err := json.Unmarshal([]byte(content["text"].(string)), &started); err != nil || started["status"] != "started" {
		t.Fatalf("tools/call result %v", call)
	}
	bad, _ := rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"model.show","arguments":{}}}`, 4.0)
	if r := bad["result"].(map[string]any); r["isError"] != true {
		t.Fatalf("a call with missing arguments: %v", bad)
	}
	stop, _ := rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"server.stop","arguments":{"config":"tiny"}}}`, 5.0)
	if !strings.Contains(stop["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string), `"stopped"`) {
		t.Fatalf("server.stop: %v", stop)
	}
	parse, _ := rpc(`{"jsonrpc":"2.0","id":6,`, nil)
	if e := parse["error"].(map[string]any); e["code"] != -32700.0 {
		t.Fatalf("a cut MCP line: %v", parse)
	}
}
