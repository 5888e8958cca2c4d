package tools

import (
	"strings"
	"unicode/utf8"
)

// Output limits shared by the built-ins. They bound what one tool result
// adds to the model's context, in the range pi and Claude Code use.
const (
	MaxOutputBytes = 50 * 1024
	MaxOutputLines = 2000
	// maxLineBytes bounds one line of grep output, where a minified file
	// would otherwise spend the whole budget on one match.
	maxLineBytes = 500
)

// countLines counts lines the way an editor does: a trailing newline does
// not start another line.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// truncateTail keeps the end of s within maxBytes and maxLines, the part of
// a command's output that usually says how it ended. It reports whether
// anything was dropped.
func truncateTail(s string, maxBytes, maxLines int) (string, bool) {
	truncated := false
	if countLines(s) > maxLines {
		body := strings.TrimSuffix(s, "\n")
		idx := len(body)
		for range maxLines {
			idx = strings.LastIndexByte(body[:idx], '\n')
		}
		s = s[idx+1:]
		truncated = true
	}
	if len(s) > maxBytes {
		cut := len(s) - maxBytes
		// Prefer dropping whole lines; cut mid-line only when one line is huge.
		if nl := strings.IndexByte(s[cut:], '\n'); nl >= 0 && nl+1 < len(s)-cut {
			cut += nl + 1
		}
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		s = s[cut:]
		truncated = true
	}
	return s, truncated
}

// truncateHead keeps the start of s within maxBytes and maxLines.
func truncateHead(s string, maxBytes, maxLines int) (string, bool) {
	truncated := false
	if countLines(s) > maxLines {
		idx := -1
		for range maxLines {
			idx += 1 + strings.IndexByte(s[idx+1:], '\n')
		}
		s = s[:idx+1]
		truncated = true
	}
	if len(s) > maxBytes {
		cut := maxBytes
		if nl := strings.LastIndexByte(s[:cut], '\n'); nl > 0 {
			cut = nl + 1
		}
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
		truncated = true
	}
	return s, truncated
}

// clipLine shortens one line to maxLineBytes with a visible marker.
func clipLine(s string) string {
	if len(s) <= maxLineBytes {
		return s
	}
	cut := maxLineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " [line truncated]"
}
