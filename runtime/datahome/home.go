package datahome

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// StoreFile is the store's name inside the data home.
const StoreFile = "troupe.db"

// Resolve picks the data home (the flag, else $TROUPE_HOME, else
// ~/.troupe) and makes sure troupe can use it (see CheckHome): every
// caller goes on to read and write in it. A home other local users could
// read is made private first, with one warning on log (nil: stderr).
func Resolve(flag string, log *slog.Logger) (string, error) {
	home, err := Path(flag)
	if err != nil {
		return "", err
	}
	if err := CheckHome(home); err != nil {
		return "", err
	}
	tightenHome(home, log)
	return home, nil
}

// Path picks the data home without touching it, for commands that only
// read: the flag, else $TROUPE_HOME, else ~/.troupe.
func Path(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if env := os.Getenv("TROUPE_HOME"); env != "" {
		return filepath.Abs(env)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find data home: set TROUPE_HOME or pass --home: %w", err)
	}
	return filepath.Join(home, ".troupe"), nil
}

// CheckHome makes sure home is a directory troupe can write in, creating
// it (DirMode) if it is missing, so that a bad home is one clear line ("home /x: not
// a directory", "home /x: permission denied") instead of whichever file
// under it fails first, with that file's error. Writing is tried rather
// than judged from the mode bits, which do not bind root.
func CheckHome(home string) error {
	if err := os.MkdirAll(home, DirMode); err != nil {
		return homeError(home, "", err)
	}
	probe, err := os.CreateTemp(home, ".troupe-write-check-*")
	if err != nil {
		return homeError(home, "", err)
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	store := filepath.Join(home, StoreFile)
	f, err := os.OpenFile(store, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return homeError(home, StoreFile, err)
	}
	return f.Close()
}

// homeError keeps the cause alone ("not a directory"): the path the
// system call failed on is home or a parent of it, and naming home is
// what tells the user which setting to fix.
func homeError(home, file string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if file != "" {
		return fmt.Errorf("home %s: %s: %w", home, file, err)
	}
	return fmt.Errorf("home %s: %w", home, err)
}
