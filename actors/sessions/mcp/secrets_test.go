package mcp

import (
	"strings"
	"testing"
)

// A server's error names its URL, query and all: what the session records
// of it keeps none of the server's credentials.
func TestRedactKeepsNoCredential(t *testing.T) {
	c := ServerConfig{Name: "api", URL: "https://bob:pa55word-xyz@api.example/mcp?key=query-secret-1&x=1",
		Env:     []EnvVariable{{Name: "TOKEN", Value: "env-secret-123"}, {Name: "N", Value: "1"}},
		Headers: []HTTPHeader{{Name: "Authorization", Value: "Bearer s-1.capability-mac"}}}
	text := `Post "https://bob:***@api.example/mcp?key=query-secret-1&x=1": refused (token env-secret-123, s-1.capability-mac)`
	got := Redact(text, c.Secrets())
	for _, s := range []string{"query-secret-1", "env-secret-123", "s-1.capability-mac"} {
		if strings.Contains(got, s) {
			t.Fatalf("%q keeps %q", got, s)
		}
	}
	if !strings.Contains(got, "x=1") || !strings.Contains(got, "refused") {
		t.Fatalf("redacted more than the credentials: %q", got)
	}
}
