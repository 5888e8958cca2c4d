package main

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// JSON-RPC batches over stdio, which MCP 2025-03-26 requires a server to
// take and 2025-06-18 removed: after a 2025-03-26 handshake a batch line
// is answered by one array line, its requests' answers in their order
// (its notifications answer nothing); after a newer one it is -32600.
func TestMCPStdioBatches(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	p := stdioPeer{testkit.Start(t, bin, nil, "mcp", "--home", t.TempDir())}
	if v := initialize(t, p, "2025-03-26"); v != "2025-03-26" {
		t.Fatalf("negotiated %s", v)
	}
	p.send(t, []byte(`[{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"config.list","arguments":{}}},`+
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}},`+
		`{"jsonrpc":"2.0","id":2,"method":"ping"}]`))
	line, ok := p.p.ReadLine(mcpWait)
	if !ok {
		t.Fatalf("no answer to the batch; stderr:\n%s", p.p.Stderr())
	}
	var answers []mcpMsg
	if err := json.Unmarshal([]byte(line), &answers); err != nil {
		t.Fatalf("answer %s is not an array: %v", line, err)
	}
	if len(answers) != 2 || string(answers[0].ID) != `"b"` || string(answers[1].ID) != "2" || string(answers[1].Result) != "{}" {
		t.Fatalf("batch answered %s", line)
	}

	q := stdioPeer{testkit.Start(t, bin, nil, "mcp", "--home", t.TempDir())}
	initialize(t, q, "2025-06-18")
	q.send(t, []byte(`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`))
	line, _ = q.p.ReadLine(mcpWait)
	if m := decodeMsg(t, []byte(line)); m.Error == nil || m.Error.Code != -32600 {
		t.Fatalf("a batch after 2025-06-18: %s", line)
	}
}
