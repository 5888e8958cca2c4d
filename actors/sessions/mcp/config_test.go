package mcp_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/troupehq/troupe/actors/sessions/mcp"
)

func TestParseServers(t *testing.T) {
	raw := `[
	  {"name":"fs","command":"/usr/bin/mcp-fs","args":["--root","/tmp"],"env":[{"name":"TOKEN","value":"x"}]},
	  {"type":"stdio","name":"plain","command":"srv","args":[],"env":[]},
	  {"type":"http","name":"web","url":"https://example.com/mcp","headers":[{"name":"Authorization","value":"Bearer t"}]},
	  {"type":"sse","name":"old","url":"http://127.0.0.1:9/sse","headers":[],"_meta":{"x":1}}
	]`
	got, err := mcp.ParseServers([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := []mcp.ServerConfig{
		{Name: "fs", Command: "/usr/bin/mcp-fs", Args: []string{"--root", "/tmp"}, Env: []mcp.EnvVariable{{Name: "TOKEN", Value: "x"}}},
		{Type: "stdio", Name: "plain", Command: "srv", Args: []string{}, Env: []mcp.EnvVariable{}},
		{Type: "http", Name: "web", URL: "https://example.com/mcp", Headers: []mcp.HTTPHeader{{Name: "Authorization", Value: "Bearer t"}}},
		{Type: "sse", Name: "old", URL: "http://127.0.0.1:9/sse", Headers: []mcp.HTTPHeader{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	for i, tr := range []string{mcp.TransportStdio, mcp.TransportStdio, mcp.TransportHTTP, mcp.TransportSSE} {
		if got[i].Transport() != tr {
			t.Errorf("entry %d: transport %q, want %q", i, got[i].Transport(), tr)
		}
	}
}

func TestParseServersNone(t *testing.T) {
	for _, raw := range []string{``, `null`, ` `, `[]`} {
		got, err := mcp.ParseServers([]byte(raw))
		if err != nil || len(got) != 0 {
			t.Errorf("%q: %v, %v", raw, got, err)
		}
	}
}

func TestParseServersErrors(t *testing.T) {
	cases := map[string]struct{ raw, want string }{
		"not a list":      {`{"name":"x"}`, "parse mcpServers: json"},
		"no name":         {`[{"command":"x"}]`, "entry 0: mcp server: empty name"},
		"no command":      {`[{"name":"a"}]`, `entry 0: mcp server "a": stdio transport needs a command`},
		"no url":          {`[{"type":"http","name":"a"}]`, `mcp server "a": url "" is not an http or https URL`},
		"bad scheme":      {`[{"type":"sse","name":"a","url":"ftp://h/x"}]`, `url "ftp://h/x" is not an http or https URL`},
		"unknown type":    {`[{"type":"ws","name":"a","url":"ws://h"}]`, `mcp server "a": unsupported transport "ws" (want stdio, http or sse)`},
		"bad header":      {`[{"type":"http","name":"a","url":"http://h","headers":[{"name":"Bad Header","value":"v"}]}]`, `invalid header name "Bad Header"`},
		"bad env":         {`[{"name":"a","command":"x","env":[{"name":"A=B","value":"v"}]}]`, `invalid environment variable name "A=B"`},
		"duplicate":       {`[{"name":"a","command":"x"},{"name":"a","command":"y"}]`, `entry 1: server names "a" and "a" give the same tool prefix "a"`},
		"same after sani": {`[{"name":"my.srv","command":"x"},{"name":"MY_srv","command":"y"}]`, `server names "my.srv" and "MY_srv"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := mcp.ParseServers([]byte(tc.raw))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
