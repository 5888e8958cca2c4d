package modelconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseYAML: any models.yml gives a config or an error, never a
// panic; the files of testdata/ seed it.
func FuzzParseYAML(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yml")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("providers: {a: {base_url: 'http://x', models: [{id: m, tool_style: text}]}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse(data, "models.yml"); err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
	})
}
