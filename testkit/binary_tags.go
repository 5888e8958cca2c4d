package testkit

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	taggedMu     sync.Mutex
	taggedBuilds = map[string]string{}
)

// BuildTroupeTags builds the troupe command with build tags (such as
// troupe_faults, whose binary lets a test inject faults) once per test
// process and tag list, and returns the binary's path.
func BuildTroupeTags(t testing.TB, tags string) string {
	t.Helper()
	taggedMu.Lock()
	defer taggedMu.Unlock()
	if path, ok := taggedBuilds[tags]; ok {
		return path
	}
	dir, err := binDir("troupe-bin-")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "troupe")
	out, err := exec.Command("go", "build", "-tags", tags, "-o", path, "github.com/troupehq/troupe/cmd/troupe").CombinedOutput()
	if err != nil {
		t.Fatal(fmt.Errorf("go build -tags %s troupe: %w\n%s", tags, err, out))
	}
	taggedBuilds[tags] = path
	return path
}
