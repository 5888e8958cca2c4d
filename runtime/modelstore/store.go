package modelstore

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/troupehq/troupe/runtime/gguf"
)

// Store is the models folder: $TROUPE_HOME/models.
type Store struct{ Dir string }

// Repo names one downloaded repo.
type Repo struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// File is one model file of a repo, with its header's summary when it is
// a complete GGUF file.
type File struct {
	Name    string        `json:"name"`
	Path    string        `json:"path"`
	Size    int64         `json:"size"`
	Partial bool          `json:"partial,omitempty"`
	GGUF    *gguf.Summary `json:"gguf,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// ErrNotFound is returned for a repo with no folder.
var ErrNotFound = errors.New("no such model repo")

var repoPart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$`) })

// CheckRepo refuses anything but "owner/name" made of plain names.
func CheckRepo(repo string) error {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || !repoPart().MatchString(owner) || !repoPart().MatchString(name) {
		return fmt.Errorf("repo %q: want owner/name (letters, digits, '.', '_', '-')", repo)
	}
	return nil
}

// checkFile refuses a file name that would leave its repo's folder.
func checkFile(name string) error {
	clean := path.Clean(name)
	if name == "" || clean != name || path.IsAbs(name) || clean == "." || strings.HasPrefix(clean, "../") ||
		clean == ".." || strings.HasSuffix(name, partSuffix) {
		return fmt.Errorf("file %q: want a relative path inside the repo", name)
	}
	return nil
}

// RepoDir is repo's folder.
func (s Store) RepoDir(repo string) string { return filepath.Join(s.Dir, filepath.FromSlash(repo)) }

// List returns the repos that have a folder, by name.
func (s Store) List() ([]Repo, error) {
	owners, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return []Repo{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := []Repo{}
	for _, o := range owners {
		if !o.IsDir() {
			continue
		}
		repos, err := os.ReadDir(filepath.Join(s.Dir, o.Name()))
		if err != nil {
			return nil, fmt.Errorf("list models: %w", err)
		}
		for _, r := range repos {
			name := o.Name() + "/" + r.Name()
			if r.IsDir() && CheckRepo(name) == nil {
				out = append(out, Repo{Name: name, Path: s.RepoDir(name)})
			}
		}
	}
	slices.SortFunc(out, func(a, b Repo) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// Show lists repo's files: each .gguf with its header's summary (or why
// it could not be read), each .part as a partial download.
func (s Store) Show(repo string) ([]File, error) {
	if err := CheckRepo(repo); err != nil {
		return nil, err
	}
	dir := s.RepoDir(repo)
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, repo)
	}
	files := []File{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p) // p is under dir
		f := File{Name: filepath.ToSlash(rel), Path: p, Size: info.Size()}
		switch {
		case strings.HasSuffix(p, partSuffix):
			f.Partial = true
		case strings.HasSuffix(strings.ToLower(p), ".gguf"):
			if g, err := gguf.ReadFile(p); err != nil {
				f.Error = err.Error()
			} else {
				sum := g.Summary()
				f.GGUF = &sum
			}
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", repo, err)
	}
	return files, nil
}

// RemoveParams are model.remove's: some files, or the whole repo.
type RemoveParams struct {
	Repo          string   `json:"repo"`
	Files         []string `json:"files,omitempty"`
	DeleteRepo    bool     `json:"delete_repo,omitempty"`
	DeleteIfEmpty bool     `json:"delete_if_empty,omitempty"`
}

// Removed is what Remove deleted.
type Removed struct {
	DeletedFiles []string `json:"deleted_files"`
	DeletedRepo  bool     `json:"deleted_repo"`
}

// Remove deletes the named files (and their partial downloads), or the
// whole repo with DeleteRepo; with DeleteIfEmpty the repo's folder goes
// too once no file is left in it. A named file that does not exist is an
// error, and then nothing is deleted.
func (s Store) Remove(p RemoveParams) (Removed, error) {
	out := Removed{DeletedFiles: []string{}}
	if err := CheckRepo(p.Repo); err != nil {
		return out, err
	}
	dir := s.RepoDir(p.Repo)
	if _, err := os.Stat(dir); err != nil {
		return out, fmt.Errorf("%w: %s", ErrNotFound, p.Repo)
	}
	if len(p.Files) == 0 && !p.DeleteRepo {
		return out, errors.New("nothing to remove: give files, or delete_repo: true")
	}
	for _, f := range p.Files {
		if err := checkFile(f); err != nil {
			return out, err
		}
		_, errFile := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
		_, errPart := os.Stat(filepath.Join(dir, filepath.FromSlash(f)) + partSuffix)
		if errFile != nil && errPart != nil {
			return out, fmt.Errorf("no file %s in %s", f, p.Repo)
		}
	}
	for _, f := range p.Files {
		full := filepath.Join(dir, filepath.FromSlash(f))
		for _, q := range []string{full, full + partSuffix} {
			if err := os.Remove(q); err == nil {
				out.DeletedFiles = append(out.DeletedFiles, strings.TrimPrefix(filepath.ToSlash(q), filepath.ToSlash(dir)+"/"))
			} else if !errors.Is(err, os.ErrNotExist) {
				return out, fmt.Errorf("remove %s: %w", f, err)
			}
		}
	}
	if p.DeleteRepo || (p.DeleteIfEmpty && isEmpty(dir)) {
		if err := os.RemoveAll(dir); err != nil {
			return out, fmt.Errorf("remove repo %s: %w", p.Repo, err)
		}
		out.DeletedRepo = true
		_ = os.Remove(filepath.Dir(dir)) // the owner's folder, when this was its last repo
	}
	return out, nil
}

// isEmpty reports whether dir holds no file at any depth.
func isEmpty(dir string) bool {
	empty := true
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			empty = false
			return filepath.SkipAll
		}
		return nil
	})
	return empty
}
