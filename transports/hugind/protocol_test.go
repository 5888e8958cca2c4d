package hugind

import (
	"encoding/json"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, c := range []struct{ line, id, code, method, params string }{
		{`{"id":"r1","method":"model.list","params":{}}`, "r1", "", "model.list", `{}`},
		{`{"id":"r1","method":"model.list"}`, "r1", "", "model.list", `{}`},
		{`{"id":"r1","method":"model.list","params":null}`, "r1", "", "model.list", `{}`},
		{`{"id":"r2","method":"x","params":{"a":1}}`, "r2", "", "x", `{"a":1}`},
		{`{"id":"r1","method":"model.list"`, "unknown", CodeInvalidJSON, "", ""},
		{`not json`, "unknown", CodeInvalidJSON, "", ""},
		{`[1,2]`, "unknown", CodeInvalidRequest, "", ""},
		{`null`, "unknown", CodeInvalidRequest, "", ""},
		{`"x"`, "unknown", CodeInvalidRequest, "", ""},
		{`{"method":"model.list"}`, "unknown", CodeInvalidRequest, "", ""},
		{`{"id":7,"method":"model.list"}`, "unknown", CodeInvalidRequest, "", ""},
		{`{"id":"","method":"model.list"}`, "unknown", CodeInvalidRequest, "", ""},
		{`{"id":"r3"}`, "r3", CodeInvalidRequest, "", ""},
		{`{"id":"r3","method":5}`, "r3", CodeInvalidRequest, "", ""},
		{`{"id":"r4","method":"m","params":[1]}`, "r4", CodeInvalidRequest, "", ""},
		{`{"id":"r4","method":"m","params":"x"}`, "r4", CodeInvalidRequest, "", ""},
	} {
		r, bad := Decode([]byte(c.line))
		if c.code == "" {
			if bad != nil || r.ID != c.id || r.Method != c.method || string(r.Params) != c.params {
				t.Errorf("%s: got %+v %+v", c.line, r, bad)
			}
			continue
		}
		if bad == nil || bad.ID != c.id || bad.Error.Code != c.code || bad.OK || bad.SchemaVersion != "1" {
			t.Errorf("%s: got %+v %+v, want %s with id %s", c.line, r, bad, c.code, c.id)
		}
	}
}

// FuzzDecode: any line that is not MCP gets either a request with a
// string id, a method and object params, or an error response with a code
// and an id.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"id":"1","method":"model.list","params":{}}`, `{"id":"1"`, `[]`, `{"id":"a","method":"m","params":[]}`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if isMCP(line) {
			return // the SDK's to decode
		}
		r, bad := Decode(line)
		if bad != nil {
			if bad.ID == "" || bad.Error == nil || bad.Error.Code == "" || bad.OK {
				t.Fatalf("bad response %+v", bad)
			}
			if _, err := json.Marshal(bad); err != nil {
				t.Fatal(err)
			}
			return
		}
		var params map[string]json.RawMessage
		if r.ID == "" || r.Method == "" || json.Unmarshal(r.Params, &params) != nil {
			t.Fatalf("request %+v from %q", r, line)
		}
	})
}
