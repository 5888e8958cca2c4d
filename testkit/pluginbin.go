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
	pluginOnce sync.Once
	pluginPath string
	pluginErr  error
)

// BuildPlugin builds testkit/cmd/troupe-plugin once per test process and
// returns the binary's path: a small extension or transformer speaking the
// hydra protocol over /acp (see that command's documentation).
func BuildPlugin(t testing.TB) string {
	t.Helper()
	pluginOnce.Do(func() {
		dir, err := os.MkdirTemp("", "troupe-plugin-bin-")
		if err != nil {
			pluginErr = err
			return
		}
		pluginPath = filepath.Join(dir, "troupe-plugin")
		out, err := exec.Command("go", "build", "-o", pluginPath,
			"github.com/troupehq/troupe/testkit/cmd/troupe-plugin").CombinedOutput()
		if err != nil {
			pluginErr = fmt.Errorf("go build troupe-plugin: %w\n%s", err, out)
		}
	})
	if pluginErr != nil {
		t.Fatal(pluginErr)
	}
	return pluginPath
}
