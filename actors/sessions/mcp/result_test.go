package mcp

import (
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/runtime/tools"
)

func TestToResult(t *testing.T) {
	cases := map[string]struct {
		res     *sdk.CallToolResult
		want    string
		isError bool
	}{
		"text": {res: &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, want: "a\nb"},
		"structured only": {res: &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, want: `{"n":1}`},
		"structured beside text": {res: &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"n":1}`}},
			StructuredContent: map[string]any{"n": 1}}, want: `{"n":1}`},
		"audio":       {res: &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("abcd")}}}, want: "[audio audio/wav, 4 bytes]"},
		"error":       {res: &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "bad"}}}, want: "bad", isError: true},
		"bare error":  {res: &sdk.CallToolResult{IsError: true}, want: "the tool reported an error without saying why", isError: true},
		"no resource": {res: &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{}}}, want: "[resource]"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := toResult(c.res, t.TempDir())
			if got.Output != c.want || got.IsError != c.isError || got.OutputType != tools.OutputText {
				t.Errorf("got %+v, want output %q, isError %v", got, c.want, c.isError)
			}
		})
	}
}

func TestToResultSpillsLongOutput(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("line\n", tools.MaxOutputLines+10)
	got := toResult(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: long}}}, dir)
	if got.Metadata[tools.MetaTruncated] != true || got.FullOutputPath == "" {
		t.Fatalf("not truncated: %+v", got.Metadata)
	}
	if n := strings.Count(got.Output, "line\n"); n != tools.MaxOutputLines {
		t.Errorf("kept %d lines, want %d", n, tools.MaxOutputLines)
	}
	if !strings.Contains(got.Output, "[output truncated: ") || !strings.Contains(got.Output, got.FullOutputPath) {
		t.Errorf("no truncation note: %q", got.Output[len(got.Output)-200:])
	}
	whole, err := os.ReadFile(got.FullOutputPath)
	if err != nil || string(whole) != long {
		t.Errorf("spilled %d bytes (%v), want %d", len(whole), err, len(long))
	}
}
