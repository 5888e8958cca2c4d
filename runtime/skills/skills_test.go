package skills

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/tooltext"
)

func requireEqual[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

// writeTree creates files under a temporary skills dir; keys are paths
// relative to it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const rustSkill = "---\nname: rust\nversion: \"1.0\"\ndescription: Rust patterns\ntags: [rust, coding]\n---\n\nUse Result.\n\nNever unwrap.\n"

func TestLoad(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"rust/SKILL.md":         rustSkill,
		"go/SKILL.md":           "\ufeff\n---\r\nname: go\r\nversion: 1.0\r\ndescription: >\r\n  Go idioms\r\n  and style\r\n---\r\nKeep it simple.",
		"claude-style/SKILL.md": "---\nname: claude-style\ndescription: No version field.\nlicense: MIT\n---\nBody.",
		"go/scripts/run.sh":     "#!/bin/sh",
		"README.md":             "not a skill",
		"empty-dir/notes.txt":   "no SKILL.md here",
		".hidden/SKILL.md":      "---\nbroken",
		"no-front/SKILL.md":     "# Just markdown",
		"unclosed/SKILL.md":     "---\nname: unclosed\ndescription: d\n",
		"bad-yaml/SKILL.md":     "---\nname: [unterminated\n---\n",
		"no-desc/SKILL.md":      "---\nname: no-desc\n---\nbody",
		"no-name/SKILL.md":      "---\ndescription: d\n---\nbody",
		"renamed/SKILL.md":      "---\nname: other\ndescription: d\n---\nbody",
	})
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, c.Skills, []Skill{
		{Name: "claude-style", Description: "No version field.", Body: "Body.", Dir: filepath.Join(dir, "claude-style")},
		{Name: "go", Version: "1.0", Description: "Go idioms and style", Body: "Keep it simple.", Dir: filepath.Join(dir, "go")},
		{Name: "rust", Version: "1.0", Description: "Rust patterns", Tags: []string{"rust", "coding"}, Body: "Use Result.\n\nNever unwrap.", Dir: filepath.Join(dir, "rust")},
	})

	wantProblems := map[string]string{
		"bad-yaml": "parse front matter",
		"no-desc":  "no description",
		"no-front": "missing front matter",
		"no-name":  "no name",
		"renamed":  `name "other" does not match its directory "renamed"`,
		"unclosed": "not closed",
	}
	if len(c.Problems) != len(wantProblems) {
		t.Fatalf("problems %v, want %d", c.Problems, len(wantProblems))
	}
	for _, p := range c.Problems {
		want, ok := wantProblems[filepath.Base(p.Dir)]
		if !ok || !strings.Contains(p.Error(), want) || !strings.Contains(p.Error(), FileName) {
			t.Errorf("problem %q, want one containing %q", p, want)
		}
	}
}

func TestLoadMissingDir(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "nope"))
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, c, Catalog{})
	requireEqual(t, c.Prompt(), "")
}

func TestLoadDirIsAFile(t *testing.T) {
	dir := writeTree(t, map[string]string{"skills": "a file"})
	if _, err := Load(filepath.Join(dir, "skills")); err == nil || !strings.Contains(err.Error(), "read skills dir") {
		t.Fatalf("err = %v, want a read skills dir error", err)
	}
}

func TestLoadUnreadableSkillIsAProblem(t *testing.T) {
	dir := writeTree(t, map[string]string{"ok/SKILL.md": "---\nname: ok\ndescription: d\n---\n"})
	if err := os.MkdirAll(filepath.Join(dir, "dirfile", FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, len(c.Skills), 1)
	if len(c.Problems) != 1 || !strings.Contains(c.Problems[0].Error(), "read SKILL.md") {
		t.Fatalf("problems %v", c.Problems)
	}
}

func TestLoadFollowsSymlinkedSkill(t *testing.T) {
	src := writeTree(t, map[string]string{"linked/SKILL.md": "---\nname: linked\ndescription: d\n---\nbody"})
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(src, "linked"), filepath.Join(dir, "linked")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	c, err := Load(dir)
	if err != nil || len(c.Skills) != 1 || c.Skills[0].Body != "body" {
		t.Fatalf("catalog %+v, err %v", c, err)
	}
}

func TestSplitFrontMatter(t *testing.T) {
	tests := []struct {
		name, in, head, body string
	}{
		{"plain", "---\na: 1\n---\nbody\n", "a: 1\n", "body"},
		{"delimiter at end", "---\na: 1\n---", "a: 1\n", ""},
		{"trailing spaces on delimiters", "--- \na: 1\n---\t\n\n body \n", "a: 1\n", "body"},
		{"longer dashes are content", "---\na: |\n  ----\n---\nb", "a: |\n  ----\n", "b"},
		{"empty front matter", "---\n---\nb", "", "b"},
		{"body keeps later rules", "---\na: 1\n---\nx\n---\ny", "a: 1\n", "x\n---\ny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, body, err := splitFrontMatter([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, string(head), tt.head)
			requireEqual(t, body, tt.body)
		})
	}
}

func TestPrompt(t *testing.T) {
	c := Catalog{Skills: []Skill{{Name: "go", Description: "Go idioms"}, {Name: "rust", Description: "Rust patterns"}}}
	requireEqual(t, c.Prompt(), "## Available Skills\n\n"+
		"You have access to the following skills. To activate a skill that is relevant to your current task, use the activate_skill tool.\n\n"+
		"- go: Go idioms\n- rust: Rust patterns\n")
}

func TestToolRendersAsTheSpecLine(t *testing.T) {
	c := Catalog{Skills: []Skill{{Name: "go"}, {Name: "rust"}}}
	tool := c.Tool()
	requireEqual(t, tool.Name, ToolName)
	requireEqual(t, string(tool.Parameters),
		`{"type":"object","properties":{"name":{"type":"string","description":"Name of the skill to activate.","enum":["go","rust"]}},"required":["name"]}`)
	prompt := tooltext.ToolsPrompt([]tooltext.Tool{tool})
	if !strings.HasSuffix(prompt, "\n- activate_skill(name): Load a skill's full instructions into context. Use this before starting work that matches a listed skill.\n") {
		t.Fatalf("prompt %q", prompt)
	}
}

func TestActivate(t *testing.T) {
	dir := writeTree(t, map[string]string{"rust/SKILL.md": rustSkill, "go/SKILL.md": "---\nname: go\ndescription: d\n---\nGo body"})
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	call := tooltext.Parse(`<tool_call>{"name":"activate_skill","args":{name: "rust"}}</tool_call>`).Calls[0]
	got, err := c.Activate(call.Arguments)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, got, "Use Result.\n\nNever unwrap.")

	tests := []struct {
		args, wantMsg string
		unknown       bool
	}{
		{`{"name":"python"}`, `unknown skill "python" (available: go, rust)`, true},
		{`{"name":""}`, `unknown skill ""`, true},
		{`{}`, `needs a "name" argument`, false},
		{`{"name":3}`, "activate_skill arguments", false},
		{`not json`, "activate_skill arguments", false},
	}
	for _, tt := range tests {
		got, err := c.Activate(tt.args)
		if err == nil || got != "" || !strings.Contains(err.Error(), tt.wantMsg) || errors.Is(err, ErrUnknownSkill) != tt.unknown {
			t.Errorf("Activate(%s) = %q, %v; want error containing %q", tt.args, got, err, tt.wantMsg)
		}
	}
	requireEqual(t, tooltext.ErrorContent(errors.New("x")), "Error: x")
}

func TestSystemPromptWithSkills(t *testing.T) {
	c := Catalog{Skills: []Skill{{Name: "go", Description: "Go idioms"}}}
	run := tooltext.Tool{Name: "run", Description: "Run a command.", Parameters: json.RawMessage(`{"properties":{"command":{}}}`)}
	got := tooltext.SystemPrompt("Be brief.", c.Prompt(), []tooltext.Tool{run, c.Tool()})
	want := "Be brief.\n\n## Available Skills\n\n" +
		"You have access to the following skills. To activate a skill that is relevant to your current task, use the activate_skill tool.\n\n" +
		"- go: Go idioms\n\n\n" +
		"You have tools. To use one: <tool_call>{\"name\":\"tool_name\",\"args\":{...}}</tool_call>\n" +
		"When done, respond without tool_call tags.\n\n" +
		"- run(command): Run a command.\n" +
		"- activate_skill(name): Load a skill's full instructions into context. Use this before starting work that matches a listed skill.\n"
	requireEqual(t, got, want)
}
