package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Problem is a skill that could not be loaded. The rest of the catalog is
// unaffected.
type Problem struct {
	Dir string
	Err error
}

func (p Problem) Error() string { return fmt.Sprintf("skill %s: %v", p.Dir, p.Err) }

func (p Problem) Unwrap() error { return p.Err }

// Load reads every <dir>/<name>/SKILL.md. A missing dir is an empty
// catalog. A skill that cannot be read or parsed is listed in
// Catalog.Problems and left out; only failing to list dir itself is an
// error. Directories without a SKILL.md are not skills and are skipped
// silently, as are hidden entries.
func Load(dir string) (Catalog, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Catalog{}, nil
	}
	if err != nil {
		return Catalog{}, fmt.Errorf("read skills dir %s: %w", dir, err)
	}
	var c Catalog
	// ReadDir sorts by file name and names equal directory names, so the
	// catalog comes out sorted by skill name.
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		skillDir := filepath.Join(dir, e.Name())
		s, err := loadSkill(skillDir)
		if errors.Is(err, errNotSkill) {
			continue
		}
		if err != nil {
			c.Problems = append(c.Problems, Problem{Dir: skillDir, Err: err})
			continue
		}
		c.Skills = append(c.Skills, s)
	}
	return c, nil
}

var errNotSkill = errors.New("not a skill directory")

func loadSkill(dir string) (Skill, error) {
	// Stat follows symlinks, so a linked skill directory counts.
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return Skill{}, errNotSkill
	}
	content, err := os.ReadFile(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return Skill{}, errNotSkill
	}
	if err != nil {
		return Skill{}, fmt.Errorf("read %s: %w", FileName, err)
	}
	s, err := parseSkill(filepath.Base(dir), content)
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", FileName, err)
	}
	s.Dir = dir
	return s, nil
}
