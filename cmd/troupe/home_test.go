package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// A home that is a file is refused in one line naming it, by every
// command, before anything under it is tried.
func TestHomeThatIsAFile(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	file := filepath.Join(t.TempDir(), "home")
	testkit.NoError(t, os.WriteFile(file, []byte("not a home"), 0o644))
	for _, home := range []string{file, filepath.Join(file, "below")} {
		for _, args := range [][]string{
			{"append", "s"}, {"events", "s"}, {"run", "hi"}, {"--mode", "rpc"}, {"--json-stream"},
		} {
			name := strings.TrimPrefix(args[0], "--")
			if name == "mode" {
				name = "rpc"
			}
			t.Run(name+" "+filepath.Base(home), func(t *testing.T) {
				p := testkit.Start(t, bin, []string{"OPENAI_BASE_URL=http://127.0.0.1:9/v1"}, append(args, "--home", home)...)
				_ = p.Stdin.Close()
				if code := p.Wait(t, 30*time.Second); code == 0 {
					t.Fatal("exit 0 with a file as home")
				}
				testkit.Equal(t, p.Stderr(), "troupe "+name+": home "+home+": not a directory\n")
			})
		}
	}
}

// A home troupe cannot write in is refused in one line, whether it exists
// or must be created. Root writes through mode bits, so as root the binary
// runs as nobody.
func TestHomeWithoutWritePermission(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	dir, err := os.MkdirTemp("", "troupe-ro-")
	testkit.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	testkit.NoError(t, os.Chmod(dir, 0o755)) // nobody must reach the binary
	exe := filepath.Join(dir, "troupe")
	copyFile(t, bin, exe, 0o755)
	ro := filepath.Join(dir, "ro")
	testkit.NoError(t, os.Mkdir(ro, 0o555))
	for _, home := range []string{ro, filepath.Join(ro, "new")} {
		cmd := exec.Command(exe, "append", "s", "--home", home)
		if os.Getuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			if os.Getuid() == 0 {
				t.Skipf("cannot run the binary as nobody: %v", err)
			}
			t.Fatalf("append ran: %v", err)
		}
		testkit.Equal(t, exit.ExitCode(), 1)
		testkit.Equal(t, stderr.String(), "troupe append: home "+home+": permission denied\n")
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	testkit.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	testkit.NoError(t, err)
	_, err = io.Copy(out, in)
	testkit.NoError(t, err)
	testkit.NoError(t, out.Close())
}
