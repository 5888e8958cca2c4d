package mcp

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// maxToolName is the longest function name OpenAI-compatible APIs accept.
const maxToolName = 64

// hashedKeep is how much of a name survives before the hash suffix, so
// that prefix + "_" + 8 hex digits fits maxToolName.
const hashedKeep = maxToolName - 9

// ToolName is the name the model sees for tool on server:
// "<server>__<tool>", where every character outside [a-zA-Z0-9_-] becomes
// '_' and, in the server part, runs of '_' collapse to one, so the first
// "__" always ends the server part and two servers never produce the same
// name. A name longer than 64 characters keeps its first 55 and ends in
// '_' plus 8 hex digits of a hash of the original server and tool names.
func ToolName(server, tool string) string {
	name := serverPrefix(server) + "__" + sanitize(tool)
	if len(name) <= maxToolName {
		return name
	}
	return hashed(name, server, tool)
}

// toolNames maps each of a server's tools to its exposed name. Tools whose
// names collide after sanitizing (or differ only in case, which the tool
// registry ignores) get the hashed form, so every tool stays callable.
func toolNames(server string, tools []string) []string {
	names := make([]string, len(tools))
	taken := map[string]bool{}
	for i, t := range tools {
		name := ToolName(server, t)
		if taken[strings.ToLower(name)] {
			name = hashed(serverPrefix(server)+"__"+sanitize(t), server, t)
		}
		taken[strings.ToLower(name)] = true
		names[i] = name
	}
	return names
}

func hashed(name, server, tool string) string {
	h := fnv.New32a()
	h.Write([]byte(server))
	h.Write([]byte{0})
	h.Write([]byte(tool))
	if len(name) > hashedKeep {
		name = name[:hashedKeep]
	}
	return fmt.Sprintf("%s_%08x", name, h.Sum32())
}

// serverPrefix is the server part of ToolName.
func serverPrefix(server string) string {
	s := sanitize(server)
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	return s
}

// sanitize replaces every character outside [a-zA-Z0-9_-] with '_'; the
// result is ASCII, so byte lengths are character counts.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
