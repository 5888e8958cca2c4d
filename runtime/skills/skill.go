package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// FileName is the file that makes a directory a skill.
const FileName = "SKILL.md"

// Skill is one installed skill.
type Skill struct {
	Name        string
	Version     string
	Description string
	Tags        []string
	// Body is the Markdown after the front matter, trimmed: the instructions
	// activate_skill returns.
	Body string
	// Dir is the skill's directory.
	Dir string
}

type frontMatter struct {
	Name        string   `yaml:"name"`
	Version     string   `yaml:"version"`
	Description string   `yaml:"description"`
	Tags        []string `yaml:"tags"`
}

// parseSkill reads a SKILL.md: YAML front matter between "---" lines, then
// the body. Name and description are required because the catalog shows
// them; the name must be the directory's, since activation finds a skill
// by its directory (spec section 5).
func parseSkill(dirName string, content []byte) (Skill, error) {
	head, body, err := splitFrontMatter(content)
	if err != nil {
		return Skill{}, err
	}
	var fm frontMatter
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return Skill{}, fmt.Errorf("parse front matter: %w", err)
	}
	s := Skill{
		Name:        strings.TrimSpace(fm.Name),
		Version:     strings.TrimSpace(fm.Version),
		Description: strings.TrimSpace(fm.Description),
		Tags:        fm.Tags,
		Body:        body,
	}
	switch {
	case s.Name == "":
		return Skill{}, errors.New("front matter has no name")
	case s.Name != dirName:
		return Skill{}, fmt.Errorf("name %q does not match its directory %q", s.Name, dirName)
	case s.Description == "":
		return Skill{}, errors.New("front matter has no description")
	}
	return s, nil
}

var delimiter = []byte("---")

// splitFrontMatter separates the YAML between the opening "---" line and the
// next "---" line from the body that follows.
func splitFrontMatter(content []byte) (head []byte, body string, err error) {
	content = bytes.TrimPrefix(content, []byte("\ufeff"))
	content = bytes.TrimLeft(content, " \t\r\n")
	first, rest, _ := bytes.Cut(content, []byte("\n"))
	if !isDelimiter(first) {
		return nil, "", errors.New("missing front matter: the file must start with a --- line")
	}
	for off := 0; off < len(rest); {
		line, _, _ := bytes.Cut(rest[off:], []byte("\n"))
		next := off + len(line) + 1
		if isDelimiter(line) {
			return rest[:off], string(bytes.TrimSpace(rest[min(next, len(rest)):])), nil
		}
		off = next
	}
	return nil, "", errors.New("front matter is not closed by a --- line")
}

func isDelimiter(line []byte) bool {
	return bytes.Equal(bytes.TrimRight(line, " \t\r"), delimiter)
}
