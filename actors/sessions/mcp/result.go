package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/runtime/tools"
)

// toResult flattens an MCP tool result into the text the model sees: text
// as is, embedded text resources with their URI, binary content (images,
// audio, blobs) as a one-line placeholder, since a tool result carries only
// text. Structured content is shown only when there is no other content:
// servers are asked to repeat it as text, so otherwise it would appear twice.
func toResult(res *sdk.CallToolResult, spillDir string) tools.Result {
	parts := make([]string, 0, len(res.Content)+1)
	for _, c := range res.Content {
		parts = append(parts, describe(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out := strings.Join(parts, "\n")
	if out == "" && res.IsError {
		out = "the tool reported an error without saying why"
	}
	r := tools.Result{Output: out, IsError: res.IsError, OutputType: tools.OutputText}
	limit(&r, spillDir)
	return r
}

func describe(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link %s %q]", c.URI, c.Name)
	case *sdk.EmbeddedResource:
		return describeResource(c.Resource)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("[%T content]", c)
	}
	return string(b)
}

func describeResource(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource]"
	case r.Text != "":
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
}

// limit keeps the output within the built-ins' budget, writing the whole
// of a longer one to a file the model is pointed at.
func limit(r *tools.Result, spillDir string) {
	if len(r.Output) <= tools.MaxOutputBytes && countLines(r.Output) <= tools.MaxOutputLines {
		return
	}
	full := r.Output
	r.Output = head(full, tools.MaxOutputBytes, tools.MaxOutputLines)
	r.Metadata = map[string]any{tools.MetaTruncated: true}
	note := fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", len(r.Output), len(full))
	if path, err := spill(full, spillDir); err == nil {
		r.FullOutputPath = path
		note = fmt.Sprintf("\n[output truncated: %d of %d bytes shown; the whole is in %s]", len(r.Output), len(full), path)
	}
	r.Output += note
}

func head(s string, maxBytes, maxLines int) string {
	if n := nthNewline(s, maxLines); n >= 0 {
		s = s[:n+1]
	}
	if len(s) <= maxBytes {
		return s
	}
	cut := maxBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// nthNewline is the index of the n-th '\n' in s, or -1.
func nthNewline(s string, n int) int {
	idx := -1
	for range n {
		next := strings.IndexByte(s[idx+1:], '\n')
		if next < 0 {
			return -1
		}
		idx += next + 1
	}
	return idx
}

func spill(s, dir string) (string, error) {
	f, err := os.CreateTemp(dir, "troupe-mcp-*.txt")
	if err != nil {
		return "", fmt.Errorf("spill output: %w", err)
	}
	_, werr := f.WriteString(s)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("spill output: %w", errors.Join(werr, cerr))
	}
	return f.Name(), nil
}

// countLines counts as an editor does: a trailing newline starts no line.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func errorResult(s string) tools.Result {
	return tools.Result{Output: s, IsError: true, OutputType: tools.OutputText}
}

// cancelled matches the built-ins' result for a call whose ctx ended.
func cancelled(name string) tools.Result {
	r := errorResult(name + ": cancelled")
	r.Metadata = map[string]any{tools.MetaCancelled: true}
	return r
}
