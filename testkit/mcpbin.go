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
	mcpServerOnce sync.Once
	mcpServerPath string
	mcpServerErr  error
)

// BuildMCPTestServer builds testkit/cmd/troupe-mcptest (an MCP server over
// stdio with progress, tool list changes, crashes and refusal on demand)
// once per test process and returns the binary's path.
func BuildMCPTestServer(t testing.TB) string {
	t.Helper()
	mcpServerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "troupe-mcptest-bin-")
		if err != nil {
			mcpServerErr = err
			return
		}
		mcpServerPath = filepath.Join(dir, "troupe-mcptest")
		out, err := exec.Command("go", "build", "-o", mcpServerPath,
			"github.com/troupehq/troupe/testkit/cmd/troupe-mcptest").CombinedOutput()
		if err != nil {
			mcpServerErr = fmt.Errorf("go build troupe-mcptest: %w\n%s", err, out)
		}
	})
	if mcpServerErr != nil {
		t.Fatal(mcpServerErr)
	}
	return mcpServerPath
}
