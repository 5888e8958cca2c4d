package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/troupehq/troupe/testkit/subprocess"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// BuildTroupe builds the troupe command once per test process and returns
// the binary's path. It builds by package path, so it also works from a
// module that embeds troupe.
func BuildTroupe(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := binDir("troupe-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "troupe")
		out, err := exec.Command("go", "build", "-o", buildPath, "github.com/troupehq/troupe/cmd/troupe").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build troupe: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Proc is a running subprocess (see testkit/subprocess), as Start returns
// it.
type Proc = subprocess.Proc

// Start runs bin with args and extra environment; the process is killed
// when the test ends if it is still running.
func Start(t testing.TB, bin string, env []string, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	p, err := subprocess.Launch(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", bin, p.Stderr())
		}
	})
	return p
}
