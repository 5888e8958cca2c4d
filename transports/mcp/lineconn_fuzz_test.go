package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzLineDecode: a line either decodes to messages, writing nothing, or
// gets exactly one JSON-RPC error line (-32700 or -32600) whose id is
// null, a string or a number; never a panic, never silence.
func FuzzLineDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":2,`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`[]`, `[1]`,
		`{"jsonrpc":"2.0","id":"four","method":7}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
		`"just a string"`, `null`, `42`, `{}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, line []byte, batches bool) {
		var out bytes.Buffer
		c := &lineConn{w: &out, pending: map[string]bool{}, batches: map[string]*batch{}}
		if batches {
			c.version = batchVersion
		}
		msgs, ok := c.decode(line)
		if ok {
			if out.Len() != 0 || len(msgs) == 0 {
				t.Fatalf("decoded %q and wrote %q", line, out.String())
			}
			return
		}
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if len(lines) != 1 {
			t.Fatalf("refused %q with %d lines: %q", line, len(lines), out.String())
		}
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(lines[0], &m); err != nil || m.JSONRPC != "2.0" || m.Error.Message == "" {
			t.Fatalf("refused %q with %q", line, lines[0])
		}
		if m.Error.Code != -32700 && m.Error.Code != -32600 {
			t.Fatalf("refused %q with code %d", line, m.Error.Code)
		}
		var id any
		if err := json.Unmarshal(m.ID, &id); err != nil {
			t.Fatalf("id %s: %v", m.ID, err)
		}
		switch id.(type) {
		case nil, string, float64:
		default:
			t.Fatalf("refused %q with id %s", line, m.ID)
		}
	})
}
