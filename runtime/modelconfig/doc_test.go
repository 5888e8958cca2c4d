package modelconfig

import (
	"os"
	"strings"
	"testing"
)

// TestDocExampleMatchesTestdata keeps the example in the package doc and
// testdata/models.yml from drifting apart, so the documented example is
// known to load.
func TestDocExampleMatchesTestdata(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	requireNoError(t, err)
	var example []string
	for _, line := range strings.Split(string(doc), "\n") {
		if yml, ok := strings.CutPrefix(line, "//\t"); ok {
			example = append(example, yml)
			continue
		}
		if line == "//" && len(example) > 0 {
			example = append(example, "")
		}
	}
	testdata, err := os.ReadFile("testdata/models.yml")
	requireNoError(t, err)
	_, body, _ := strings.Cut(string(testdata), "\n\n")
	requireEqual(t, strings.TrimSpace(strings.Join(example, "\n")), strings.TrimSpace(body))
}
