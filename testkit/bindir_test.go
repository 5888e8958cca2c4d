package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A binary directory whose test process ended is removed by the next
// build; one whose owner runs, or that names no owner, stays.
func TestBinDirSweepsEndedOwners(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ended := exec.Command("true")
	NoError(t, ended.Run())
	mk := func(name, owner string) string {
		dir := filepath.Join(tmp, name)
		NoError(t, os.Mkdir(dir, 0o700))
		if owner != "" {
			NoError(t, os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o600))
		}
		return dir
	}
	gone := mk("sweep-bin-1", strconv.Itoa(ended.Process.Pid))
	live := mk("sweep-bin-2", strconv.Itoa(os.Getpid()))
	unowned := mk("sweep-bin-3", "")
	other := mk("other-bin-4", strconv.Itoa(ended.Process.Pid))

	dir, err := binDir("sweep-bin-")
	NoError(t, err)
	for _, d := range []string{live, unowned, other, dir} {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("%s was removed: %v", d, err)
		}
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("%s of an ended process is still there (%v)", gone, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	NoError(t, err)
	Equal(t, string(b), strconv.Itoa(os.Getpid()))
}
