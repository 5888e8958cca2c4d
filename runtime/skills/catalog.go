package skills

import (
	"strings"

	"github.com/samber/lo"
)

// Catalog is the set of installed skills.
type Catalog struct {
	// Skills are sorted by name; names are unique.
	Skills []Skill
	// Problems lists the skills that failed to load, for the caller to log.
	Problems []Problem
}

// Lookup finds a skill by name.
func (c Catalog) Lookup(name string) (Skill, bool) {
	for _, s := range c.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

const promptHeader = "## Available Skills\n\n" +
	"You have access to the following skills. To activate a skill that is relevant to your current task, use the activate_skill tool.\n\n"

// Prompt renders the catalog section of the system prompt: a heading, how
// to activate a skill, and "- name: description" per skill. Only summaries
// go here; bodies are loaded on demand by activate_skill. It is empty when
// there are no skills.
func (c Catalog) Prompt() string {
	if len(c.Skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(promptHeader)
	for _, s := range c.Skills {
		b.WriteString("- ")
		b.WriteString(s.Name)
		b.WriteString(": ")
		b.WriteString(s.Description)
		b.WriteByte('\n')
	}
	return b.String()
}

func (c Catalog) names() []string {
	return lo.Map(c.Skills, func(s Skill, _ int) string { return s.Name })
}
