package upstream

import (
	"encoding/json"
	"reflect"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// TestReadChunkAsTheSDK: what the one-pass reader keeps of a chunk is
// what the SDK's types read (kind and text), and every other message is
// left to the general path.
func TestChunkReaderAsTheSDK(t *testing.T) {
	fast := []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hé \"x\"\n"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"content":{"text":"t","type":"text","annotations":{"priority":1}},"sessionUpdate":"agent_thought_chunk"},"sessionId":"s2"}}`,
		`{ "jsonrpc" : "2.0", "method" : "session/update", "params" : { "sessionId" : "s3", "update" : { "sessionUpdate" : "agent_message_chunk", "_meta" : {"a":[1,{"b":null}]}, "content" : { "type" : "text", "text" : "\u00e9\ud83d\ude00 \ufffd" } } } }`,
	}
	var r chunkReader
	for _, line := range fast {
		got, ok := r.read([]byte(line))
		if !ok {
			t.Fatalf("not read as a chunk: %s", line)
		}
		var m struct{ Params acp.SessionNotification }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		want := m.Params
		if want.Update.AgentMessageChunk != nil {
			want.Update = acp.UpdateAgentMessageText(want.Update.AgentMessageChunk.Content.Text.Text)
		} else {
			want.Update = acp.UpdateAgentThoughtText(want.Update.AgentThoughtChunk.Content.Text.Text)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: read %+v, the SDK reads %+v", line, got, want)
		}
	}
	slow := []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"u"}}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"agent_message_chunk\""}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text"}}}}`,
		`not json _chunk"`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}} trailing`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"`,
	}
	for _, line := range slow {
		if _, ok := r.read([]byte(line)); ok {
			t.Fatalf("read as a chunk: %s", line)
		}
	}
}
