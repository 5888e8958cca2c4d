package agentpkg

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// List returns the installed agents by name; a folder without a valid
// manifest is left out.
func List(home string) ([]Info, error) {
	entries, err := os.ReadDir(Dir(home))
	if errors.Is(err, os.ErrNotExist) {
		return []Info{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	out := []Info{}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(Dir(home), e.Name())
		m, err := Load(dir)
		if err != nil {
			continue
		}
		out = append(out, Info{Name: e.Name(), Path: dir, Version: m.Version, Mode: m.Mode})
	}
	slices.SortFunc(out, func(a, b Info) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// Remove deletes an installed agent.
func Remove(home, name string) error {
	if !namePattern().MatchString(name) {
		return fmt.Errorf("no such agent: %q", name)
	}
	dir := filepath.Join(Dir(home), name)
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		return fmt.Errorf("no such agent: %s", name)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove agent %s: %w", name, err)
	}
	return nil
}

// Resolve finds the package a run names: a folder, an agent.yaml, or an
// installed agent's name. It returns the package's folder and manifest.
func Resolve(home, path string) (string, Manifest, error) {
	if path == "" {
		return "", Manifest{}, errors.New("path is required")
	}
	dir := path
	if fi, err := os.Stat(path); err == nil {
		if !fi.IsDir() {
			if filepath.Base(path) != ManifestFile {
				return "", Manifest{}, fmt.Errorf("%s is not a folder nor an agent.yaml", path)
			}
			dir = filepath.Dir(path)
		}
	} else if namePattern().MatchString(path) && !strings.ContainsRune(path, filepath.Separator) {
		dir = filepath.Join(Dir(home), path)
		if _, err := os.Stat(dir); err != nil {
			return "", Manifest{}, fmt.Errorf("no such agent: %s (not installed, not a path)", path)
		}
	} else {
		return "", Manifest{}, fmt.Errorf("no such agent: %s", path)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", Manifest{}, fmt.Errorf("resolve agent: %w", err)
	}
	m, err := Load(abs)
	if err != nil {
		return "", Manifest{}, err
	}
	return abs, m, nil
}
