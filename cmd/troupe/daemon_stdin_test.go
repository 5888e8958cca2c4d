package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// 10 MB piped through `troupe cat --stream`: the agent's scripted call
// reaches the stdin MCP server through its injected descriptor, and the
// MCP tools, driven as the agent would, read the kept megabyte with exact
// cursors and report the evicted nine as a gap.
func TestDaemonCatStreamTenMegabytes(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "hydra-acp-stdin__info", "{}")),
		llmserver.Steps(llmserver.Text("read it all")),
	}})
	d := startDaemon(t, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny", "--cwd", work)
	const total = 10 << 20
	in := stdinInput(total)

	code, out, id := pipeCat(t, home, in, "--stream", "summarise the log")
	if code != 0 || !strings.Contains(out, "read it all") {
		t.Fatalf("cat: exit %d, stdout %q; daemon stderr:\n%s", code, out, d.proc.Stderr())
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests, want 2", len(reqs))
	}
	if first := string(reqs[0].Body); !strings.Contains(first, "hydra-acp-stdin") || !strings.Contains(first, "summarise the log") {
		t.Fatalf("first request lacks the prompt or the stdin note: %.500s", first)
	}
	if second := string(reqs[1].Body); !strings.Contains(second, "writeCursor") || !strings.Contains(second, "capacityBytes") {
		t.Fatalf("the scripted info call's result did not reach the model: %.2000s", second)
	}

	if servers := mcpServers(t, d, id); len(servers) != 1 {
		t.Fatalf("without --mcp-recall only stdin is injected: %+v", servers)
	}
	s := dialAgentMCP(t, d, id, "hydra-acp-stdin")
	var info stdinInfo
	testkit.Equal(t, callSDKTool(t, s, "info", nil, &info), "")
	start := int64(total - 1<<20)
	if info.Mode != "memory" || info.WriteCursor != total || !info.EOF || info.CapacityBytes != 1<<20 ||
		info.StartCursor != start || info.EvictedBytes != start {
		t.Fatalf("info: %+v", info)
	}

	var r stdinRead
	testkit.Equal(t, callSDKTool(t, s, "read", map[string]any{"cursor": 1000, "maxBytes": 64}, &r), "")
	if r.Gap == nil || r.Gap.From != 1000 || r.Gap.To != start || r.Gap.Bytes != start-1000 || r.Cursor != start {
		t.Fatalf("read below the ring: %+v", r)
	}
	testkit.Equal(t, r.Data, string(in[start:start+64]))

	// The kept megabyte, page by page from nextCursor to nextCursor.
	var got bytes.Buffer
	for cur := start; ; {
		var p stdinRead
		testkit.Equal(t, callSDKTool(t, s, "read", map[string]any{"cursor": cur, "maxBytes": 300 << 10}, &p), "")
		if p.Gap != nil || p.Cursor != cur || p.NextCursor != cur+int64(len(p.Data)) {
			t.Fatalf("page at %d: cursor %d next %d gap %+v, %d bytes", cur, p.Cursor, p.NextCursor, p.Gap, len(p.Data))
		}
		got.WriteString(p.Data)
		cur = p.NextCursor
		if p.EOF {
			testkit.Equal(t, cur, int64(total))
			break
		}
	}
	if !bytes.Equal(got.Bytes(), in[start:]) {
		t.Fatalf("the pages differ from the input's last megabyte")
	}

	var tail stdinRead
	testkit.Equal(t, callSDKTool(t, s, "tail", map[string]any{"lines": 2}, &tail), "")
	lines := strings.Split(string(in), "\n")
	if want := strings.Join(lines[len(lines)-2:], "\n"); tail.Data != want || tail.NextCursor != total || !tail.EOF {
		t.Fatalf("tail: %q, want %q", tail.Data, want)
	}
	var head stdinRead
	testkit.Equal(t, callSDKTool(t, s, "head", map[string]any{"lines": 1}, &head), "")
	if head.Gap == nil || head.Gap.To != start || head.Cursor != start || strings.Count(head.Data, "\n") != 1 {
		t.Fatalf("head after eviction: %+v", head)
	}

	// A line near the end, found at its absolute offset; the evicted
	// start is reported, not searched.
	needle := lines[len(lines)-100]
	var grep struct {
		Matches []struct {
			Cursor int64
			Line   string
		}
		ScannedTo int64
		Gap       *struct{ From, To int64 }
	}
	testkit.Equal(t, callSDKTool(t, s, "grep", map[string]any{"pattern": "^" + needle + "$"}, &grep), "")
	if len(grep.Matches) != 1 || grep.Matches[0].Line != needle || grep.Matches[0].Cursor != int64(bytes.Index(in, []byte(needle+"\n"))) ||
		grep.Gap == nil || grep.Gap.From != 0 || grep.Gap.To != start || grep.ScannedTo != total {
		t.Fatalf("grep %q: %+v", needle, grep)
	}
	if msg := callSDKTool(t, s, "grep", map[string]any{"pattern": "("}, nil); !strings.Contains(msg, "invalid pattern") {
		t.Fatalf("bad pattern: %q", msg)
	}

	// cat's session is piped: hidden from the list unless asked for.
	var list struct {
		Sessions []struct {
			SessionID   string
			Interactive *bool
		}
	}
	d.call(t, "GET", "/v1/sessions", nil, http.StatusOK, &list)
	testkit.Equal(t, len(list.Sessions), 0)
	d.call(t, "GET", "/v1/sessions?includeNonInteractive=1", nil, http.StatusOK, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != id || list.Sessions[0].Interactive == nil || *list.Sessions[0].Interactive {
		t.Fatalf("includeNonInteractive: %+v", list)
	}

	var w struct {
		WriteCursor   int64
		EOF, TimedOut bool
	}
	testkit.Equal(t, callSDKTool(t, s, "wait_for_more", map[string]any{"cursor": total, "timeoutMs": 60000}, &w), "")
	if w.WriteCursor != total || !w.EOF || w.TimedOut {
		t.Fatalf("wait at the end of an ended stream: %+v", w)
	}
}
