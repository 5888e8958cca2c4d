package mcp

import (
	"strings"
	"testing"
)

func TestToolName(t *testing.T) {
	cases := []struct{ server, tool, want string }{
		{"fs", "read_file", "fs__read_file"},
		{"my server", "get.file", "my_server__get_file"},
		{"a__b", "c", "a_b__c"},  // the first "__" always ends the server part
		{"a", "b__c", "a__b__c"}, // kept: the server part has no "__"
		{"über", "tool-1", "_ber__tool-1"},
	}
	for _, c := range cases {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
}

func TestToolNameLong(t *testing.T) {
	long := strings.Repeat("x", 80)
	a, b := ToolName("srv", long+"a"), ToolName("srv", long+"b")
	if len(a) != maxToolName || len(b) != maxToolName {
		t.Errorf("lengths %d and %d, want %d", len(a), len(b), maxToolName)
	}
	if a == b {
		t.Errorf("two long names both became %q", a)
	}
	if !strings.HasPrefix(a, "srv__xxx") {
		t.Errorf("long name %q lost its prefix", a)
	}
	if ToolName("srv", long+"a") != a {
		t.Error("ToolName is not stable")
	}
}

func TestToolNamesCollide(t *testing.T) {
	got := toolNames("s", []string{"a.b", "a_b", "A_B", "c"})
	seen := map[string]bool{}
	for _, n := range got {
		if seen[strings.ToLower(n)] {
			t.Fatalf("names %v collide", got)
		}
		seen[strings.ToLower(n)] = true
	}
	if got[0] != "s__a_b" || got[3] != "s__c" {
		t.Errorf("names %v: the first of colliding names and unique ones keep the plain form", got)
	}
}
