package llmserver

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseScript: any script file gives a script or an error, never a
// panic; a script that parses compiles (ParseScript checks it as Start
// would).
func FuzzParseScript(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("replies: [{steps: [{text: hi}, {tool_call: {name: run, arguments: {cmd: ls}}}]}]"))
	f.Add([]byte("replies: [{steps: [{text_tool_call: {format: qwen, name: run, args: {cmd: ls}, split: 3}}]}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript(data)
		if err != nil {
			return
		}
		if _, err := compile(s); err != nil {
			t.Fatalf("parsed but does not compile: %v", err)
		}
	})
}
