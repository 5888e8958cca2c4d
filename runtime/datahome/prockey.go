package datahome

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ProcKeyFile holds the store's process key (session.Config.ProcKey),
// beside the store: every troupe on the store marks its tool processes
// with it, and only one holding it can prove, after a crash, what it may
// kill. It never leaves the home: exports, bundles and logs do not carry it.
const ProcKeyFile = "proc.key"

const procKeySize = 32

// LoadProcKey reads the home's process key, making it on first use. Two
// processes making it at once agree: each writes a file of its own and
// links it into place, and the one that loses reads the winner's.
func LoadProcKey(home string) ([]byte, error) {
	path := filepath.Join(home, ProcKeyFile)
	key, err := readProcKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	tmp, err := os.CreateTemp(home, ".proc-key-*")
	if err != nil {
		return nil, fmt.Errorf("process key: %w", err)
	}
	defer os.Remove(tmp.Name())
	key = make([]byte, procKeySize)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("process key: %w", err)
	}
	_, err = tmp.Write(key)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("process key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("process key: %w", err)
	}
	return readProcKey(path)
}

func readProcKey(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(key) != procKeySize {
		return nil, fmt.Errorf("process key %s: %d bytes, want %d", path, len(key), procKeySize)
	}
	return key, nil
}
