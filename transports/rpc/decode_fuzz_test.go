package rpc

import (
	"encoding/json"
	"testing"
)

// FuzzDecode: every input either decodes to a known command or yields an
// error response that marshals, with any readable id echoed; nothing
// panics. Seeds are in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":"1","type":"prompt","message":"hi"}`,
		`{"type":"prompt","message":"x","images":[{"type":"image","source":{"type":"base64","mediaType":"image/png","data":"AA"}}]}`,
		`{"type":"set_auto_retry","enabled":true}`,
		`{"id":3,"type":"bash","command":"ls"}`,
		`not json`, `[]`, `null`, `{"type":null}`, `{"id":{},"type":"get_state"}`, `{} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		cmd, resp := Decode(line)
		if resp == nil {
			if _, ok := commands[cmd.Type]; !ok {
				t.Fatalf("decoded unknown command %q", cmd.Type)
			}
			return
		}
		if resp.Success || resp.Error == "" || resp.Type != "response" || resp.Command == "" {
			t.Fatalf("bad error response %+v", resp)
		}
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("error response does not marshal: %v", err)
		}
		if !json.Valid(b) {
			t.Fatalf("invalid json %s", b)
		}
		if resp.ID != nil && !json.Valid(resp.ID) {
			t.Fatalf("echoed id is not JSON: %s", resp.ID)
		}
	})
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ in, command, err, id string }{
		{`nope`, "parse", "Failed to parse command: invalid character 'o' in literal null (expecting 'u')", ""},
		{`{"id":"x","type":"zap"}`, "zap", "Unknown command: zap", `"x"`},
		{`{"id":1,"type":"prompt"}`, "prompt", `missing field "message"`, "1"},
		{`{"type":"set_auto_retry","enabled":1}`, "set_auto_retry", `field "enabled" must be a boolean`, ""},
		{`{"type":"prompt","message":"m","streamingBehavior":"now"}`, "prompt", `field "streamingBehavior" must be one of [steer followUp], not "now"`, ""},
	}
	for _, c := range cases {
		_, r := Decode([]byte(c.in))
		if r == nil || r.Command != c.command || r.Error != c.err || string(r.ID) != c.id {
			t.Errorf("Decode(%s) = %+v", c.in, r)
		}
	}
	cmd, r := Decode([]byte(`{"type":"prompt","message":"m","images":[{"type":"image","data":"QQ","mimeType":"image/png"}],"streamingBehavior":"followUp"}`))
	if r != nil || len(cmd.Images) != 1 || cmd.StreamingBehavior != "followUp" {
		t.Fatalf("%+v %+v", cmd, r)
	}
}
