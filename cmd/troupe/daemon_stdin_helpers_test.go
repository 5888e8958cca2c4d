package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/testkit"
)

// stdinInput is n bytes of numbered lines, each with a two-byte
// character, so chunks cut anywhere would show up as corruption.
func stdinInput(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %08d café %s\n", i, strings.Repeat("x", i%50))
	}
	return b.Bytes()[:n]
}

// pipeCat pipes in through `troupe cat` and returns its exit code, stdout,
// and the session it created.
func pipeCat(t testing.TB, home string, in []byte, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(testkit.BuildTroupe(t), append([]string{"cat", "--home", home}, args...)...)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		testkit.NoError(t, err)
	}
	m := regexp.MustCompile(`troupe cat: session (\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("cat named no session; exit %d, stderr:\n%s", code, stderr.String())
	}
	return code, stdout.String(), m[1]
}

// mcpServers is the mcpServers a session was created with, from its log.
func mcpServers(t *testing.T, d *daemonProc, id string) map[string]struct {
	Type, URL string
	Headers   []struct{ Name, Value string }
} {
	t.Helper()
	cmd := exec.Command(testkit.BuildTroupe(t), "events", id, "--home", d.home)
	out, err := cmd.Output()
	testkit.NoError(t, err)
	var first struct {
		Kind    string
		Payload struct {
			MCPServers []struct {
				Type, Name, URL string
				Headers         []struct{ Name, Value string }
			} `json:"mcp_servers"`
		}
	}
	testkit.NoError(t, json.Unmarshal([]byte(strings.SplitN(string(out), "\n", 2)[0]), &first))
	got := map[string]struct {
		Type, URL string
		Headers   []struct{ Name, Value string }
	}{}
	for _, s := range first.Payload.MCPServers {
		got[s.Name] = struct {
			Type, URL string
			Headers   []struct{ Name, Value string }
		}{s.Type, s.URL, s.Headers}
	}
	return got
}

// headerTransport adds the capability token to every request.
type headerTransport struct{ auth string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", h.auth)
	return http.DefaultTransport.RoundTrip(r)
}

// dialAgentMCP connects to one of a session's injected MCP servers as its
// agent would: the URL and header of its descriptor.
func dialAgentMCP(t *testing.T, d *daemonProc, id, server string) *mcp.ClientSession {
	t.Helper()
	desc, ok := mcpServers(t, d, id)[server]
	if !ok || desc.Type != "http" || len(desc.Headers) != 1 || desc.Headers[0].Name != "Authorization" {
		t.Fatalf("session %s has no usable %s descriptor: %+v", id, server, mcpServers(t, d, id))
	}
	testkit.Equal(t, desc.URL, d.url+"/mcp/"+server)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-agent"}, nil)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: desc.URL,
		HTTPClient: &http.Client{Transport: headerTransport{auth: desc.Headers[0].Value}}}, nil)
	testkit.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// callSDKTool calls a tool and decodes its structured answer into out; it
// returns the error text of a failed call.
func callSDKTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	testkit.NoError(t, err)
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if out != nil {
		raw, err := json.Marshal(res.StructuredContent)
		testkit.NoError(t, err)
		testkit.NoError(t, json.Unmarshal(raw, out))
	}
	return ""
}

type stdinRead struct {
	Cursor, NextCursor, WriteCursor int64
	Data                            string
	EOF                             bool
	Gap                             *struct{ From, To, Bytes int64 }
}

type stdinInfo struct {
	Mode                                                  string
	CapacityBytes, StartCursor, WriteCursor, EvictedBytes int64
	FileCapBytes                                          int64
	FilePath                                              string
	EOF                                                   bool
}
