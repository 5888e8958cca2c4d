package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	fakeLlamaOnce sync.Once
	fakeLlamaPath string
	fakeLlamaErr  error
)

// BuildFakeLlamaServer builds testkit/cmd/fake-llama-server once per test
// process and returns the binary's path: a stand-in for llama-server that
// takes its flags (see that command's documentation).
func BuildFakeLlamaServer(t testing.TB) string {
	t.Helper()
	fakeLlamaOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fake-llama-bin-")
		if err != nil {
			fakeLlamaErr = err
			return
		}
		fakeLlamaPath = filepath.Join(dir, "llama-server")
		out, err := exec.Command("go", "build", "-o", fakeLlamaPath,
			"github.com/troupehq/troupe/testkit/cmd/fake-llama-server").CombinedOutput()
		if err != nil {
			fakeLlamaErr = fmt.Errorf("go build fake-llama-server: %w\n%s", err, out)
		}
	})
	if fakeLlamaErr != nil {
		t.Fatal(fakeLlamaErr)
	}
	return fakeLlamaPath
}
