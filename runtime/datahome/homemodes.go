package datahome

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/troupehq/troupe/runtime/logging"
)

// Modes of what troupe keeps in the data home: the store holds every
// conversation and the home the daemon's credentials, so nothing in it is
// for other local users. Every file troupe creates there is created with
// FileMode and every folder with DirMode, whatever the umask.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// private is the permission bits other users must not have.
const private fs.FileMode = 0o077

// tightenHome takes every permission of group and others off home and
// everything under it (a home made by an older troupe was 0755 with 0644
// files, readable by every local user), and says so in one warning when
// it changed anything. Symbolic links are not followed: what they name is
// not the home's. The owner's bits are kept (an installed program stays
// executable). A file it cannot change (another owner's) is named in the
// same warning rather than failing the command: the home still works.
func tightenHome(home string, log *slog.Logger) {
	var changed int
	var failed []error
	_ = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			failed = append(failed, err)
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) { // removed while walking
				failed = append(failed, err)
			}
			return nil
		}
		perm := info.Mode().Perm()
		if perm&private == 0 {
			return nil
		}
		if err := os.Chmod(path, perm&^private); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				failed = append(failed, err)
			}
			return nil
		}
		changed++
		return nil
	})
	if changed == 0 && len(failed) == 0 {
		return
	}
	if log == nil {
		log, _ = logging.New(logging.Options{})
	}
	attrs := []any{"home", home, "tightened", changed}
	if len(failed) > 0 {
		attrs = append(attrs, "not_tightened", len(failed), "error", failed[0])
	}
	log.Warn("the data home was open to other local users: their permissions are taken off everything in it", attrs...)
}
