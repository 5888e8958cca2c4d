package rpc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/troupehq/troupe/runtime/skills"
)

// Input expansion, as pi does it for prompt, steer and follow_up
// (specs/indusagi-rpc-mode.md, "Input expansion"): a message
// "/skill:NAME args" becomes the skill's instructions in pi's <skill>
// block with the arguments after it, and "/NAME args" the prompt template
// NAME.md with its $1…$9, $@ and $ARGUMENTS filled in. Anything else, an
// unknown name among it, goes to the model as it was typed.
//
// Where they are found, the session's project first (as pi looks in
// .pi/ of the project before its user directory):
//
//	templates  <cwd>/.pi/prompts/NAME.md, then $TROUPE_HOME/prompts/NAME.md
//	skills     <cwd>/.pi/skills/NAME/SKILL.md, then $TROUPE_HOME/skills/NAME/SKILL.md
//
// The files are read off the connection's mailbox (expandInput runs in a
// goroutine).

// expandDirs are where a connection looks for templates and skills.
type expandDirs struct {
	cwd, home             string
	noTemplates, noSkills bool
}

func (d expandDirs) templateDirs() []string {
	return d.dirs(filepath.Join(".pi", "prompts"), "prompts")
}

func (d expandDirs) skillDirs() []string {
	return d.dirs(filepath.Join(".pi", "skills"), "skills")
}

func (d expandDirs) dirs(project, home string) []string {
	var out []string
	if d.cwd != "" {
		out = append(out, filepath.Join(d.cwd, project))
	}
	if d.home != "" {
		out = append(out, filepath.Join(d.home, home))
	}
	return out
}

// expandInput is text with a leading skill command or template expanded.
func expandInput(text string, d expandDirs) string {
	if !strings.HasPrefix(text, "/") {
		return text
	}
	if rest, ok := strings.CutPrefix(text, "/skill:"); ok {
		if d.noSkills {
			return text
		}
		name, args := splitCommand(rest)
		return expandSkill(text, name, args, d.skillDirs())
	}
	if d.noTemplates {
		return text
	}
	name, args := splitCommand(text[1:])
	return expandTemplate(text, name, args, d.templateDirs())
}

// splitCommand cuts "NAME args…" at the first white space.
func splitCommand(s string) (name, args string) {
	i := strings.IndexFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// validName keeps a name inside the directories it is looked up in.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`)
}

func expandSkill(text, name, args string, dirs []string) string {
	if !validName(name) {
		return text
	}
	for _, dir := range dirs {
		cat, err := skills.Load(dir)
		if err != nil {
			continue
		}
		s, ok := cat.Lookup(name)
		if !ok {
			continue
		}
		file := filepath.Join(s.Dir, skills.FileName)
		block := fmt.Sprintf("<skill name=%q location=%q>\nReferences are relative to %s.\n\n%s\n</skill>", s.Name, file, s.Dir, s.Body)
		if args != "" {
			block += "\n\n" + args
		}
		return block
	}
	return text
}

func expandTemplate(text, name, args string, dirs []string) string {
	if !validName(name) {
		return text
	}
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, name+".md"))
		if err != nil {
			continue
		}
		return substituteArgs(stripFrontMatter(b), parseArgs(args))
	}
	return text
}

// stripFrontMatter is a template's text without its YAML front matter
// (description, argument-hint), which is for the menus that list it.
func stripFrontMatter(b []byte) string {
	s := string(bytes.TrimPrefix(b, []byte("\ufeff")))
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || strings.TrimSpace(first) != "---" {
		return strings.TrimSpace(s)
	}
	for off := 0; off < len(rest); {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if strings.TrimSpace(line) == "---" {
			return strings.TrimSpace(rest[min(off+len(line)+1, len(rest)):])
		}
		off += len(line) + 1
	}
	return strings.TrimSpace(s) // never closed: not front matter
}

// parseArgs splits a template's arguments at white space, a quoted one
// ("…" or '…') kept whole, as a shell would.
func parseArgs(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// substituteArgs fills $1…$9 (empty when not given), then $ARGUMENTS and
// $@ (all of them, joined by spaces).
func substituteArgs(body string, args []string) string {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '$' || i+1 >= len(body) {
			b.WriteByte(body[i])
			continue
		}
		next := body[i+1]
		switch {
		case next >= '1' && next <= '9':
			n, _ := strconv.Atoi(string(next))
			if n <= len(args) {
				b.WriteString(args[n-1])
			}
			i++
		case next == '@':
			b.WriteString(strings.Join(args, " "))
			i++
		case strings.HasPrefix(body[i+1:], "ARGUMENTS"):
			b.WriteString(strings.Join(args, " "))
			i += len("ARGUMENTS")
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}
