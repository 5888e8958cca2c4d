package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/crypto/bcrypt"

	"github.com/troupehq/troupe/testkit"
)

// authOnTerminal runs `troupe auth password` in a pseudo-terminal, typing
// each answer after its prompt; it returns what the terminal showed and
// the exit code.
func authOnTerminal(t *testing.T, home string, answers ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(testkit.BuildTroupe(t), "auth", "password", "--home", home)
	ptmx, err := pty.Start(cmd)
	testkit.NoError(t, err)
	defer ptmx.Close()
	out := &testkit.Buffer{}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, ptmx) // ends with EIO once the child is gone
	}()
	for i, a := range answers {
		prompts := i + 1
		testkit.Eventually(t, 10*time.Second, "prompt "+a, func() bool {
			return strings.Count(out.String(), ": ") >= prompts
		})
		_, err := ptmx.Write([]byte(a + "\r"))
		testkit.NoError(t, err)
	}
	err = cmd.Wait()
	<-copied
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode()
	}
	testkit.NoError(t, err)
	return out.String(), 0
}

// On a terminal the password is asked twice, unechoed; two different
// answers set nothing (issue 25, item 22).
func TestAuthPasswordAsksTwiceOnATerminal(t *testing.T) {
	home := t.TempDir()
	out, code := authOnTerminal(t, home, "s3cret-one", "s3cret-two")
	testkit.Equal(t, code, 1)
	if !strings.Contains(out, "master password: ") || !strings.Contains(out, "repeat it: ") || !strings.Contains(out, "the two passwords differ; nothing was set") {
		t.Fatalf("terminal showed %q", out)
	}
	if _, err := os.Stat(filepath.Join(home, "auth-password")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a password was stored after a mismatch: %v", err)
	}

	out, code = authOnTerminal(t, home, "s3cret-one", "s3cret-one")
	testkit.Equal(t, code, 0)
	if strings.Contains(out, "s3cret") {
		t.Fatalf("the password was echoed: %q", out)
	}
	hash, err := os.ReadFile(filepath.Join(home, "auth-password"))
	testkit.NoError(t, err)
	testkit.NoError(t, bcrypt.CompareHashAndPassword([]byte(strings.TrimSpace(string(hash))), []byte("s3cret-one")))
}
