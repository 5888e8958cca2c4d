package llamaconfig

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Store is the configs folder: $TROUPE_HOME/configs.
type Store struct{ Dir string }

// Entry names one config file.
type Entry struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// ErrNotFound is returned for a config name with no file.
var ErrNotFound = errors.New("no such config")

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// CheckName refuses names that are not one plain file name, so that a
// name can never reach outside the folder.
func CheckName(name string) error {
	if !validName().MatchString(name) {
		return fmt.Errorf("config name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	return nil
}

// Path is the file of config name.
func (s Store) Path(name string) string { return filepath.Join(s.Dir, name+".yml") }

// List returns the configs by name; a missing folder is an empty list.
func (s Store) List() ([]Entry, error) {
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return []Entry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list configs: %w", err)
	}
	out := []Entry{}
	for _, de := range des {
		name, ok := strings.CutSuffix(de.Name(), ".yml")
		if !ok || de.IsDir() || CheckName(name) != nil {
			continue
		}
		out = append(out, Entry{Name: name, Path: filepath.Join(s.Dir, de.Name())})
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// Read loads config name.
func (s Store) Read(name string) (Config, error) {
	if err := CheckName(name); err != nil {
		return Config{}, err
	}
	c, err := Load(s.Path(name))
	if errors.Is(err, os.ErrNotExist) {
		return Config{}, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return c, err
}

// Write saves c as config name, refusing to replace one unless overwrite.
// It writes a temporary file and renames it, so a reader never sees half.
func (s Store) Write(name string, c Config, overwrite bool) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	path := s.Path(name)
	if _, err := os.Stat(path); err == nil && !overwrite {
		return "", fmt.Errorf("config %s exists: pass overwrite to replace it", name)
	}
	b, err := c.Marshal()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return "", fmt.Errorf("make configs folder: %w", err)
	}
	tmp, err := os.CreateTemp(s.Dir, "."+name+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("write config: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up on failure
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write config: %w", err)
	}
	// An API key may be in it: readable by the owner only.
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return "", fmt.Errorf("write config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("write config: %w", err)
	}
	return path, nil
}

// Remove deletes config name. confirm must be true: removing is not undone.
func (s Store) Remove(name string, confirm bool) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if !confirm {
		return fmt.Errorf("removing config %s needs confirm: true", name)
	}
	if err := os.Remove(s.Path(name)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %s", ErrNotFound, name)
		}
		return fmt.Errorf("remove config: %w", err)
	}
	return nil
}
