package testkit

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// DocTree is the actor tree ARCHITECTURE.md draws: each node a name as the
// live tree spells it ("store-writer"), a role ("<session id>": any one
// segment) or a numbered child ("run$N": protoactor's "run$7"), with a
// placeholder allowed inside a name ("mcp-<i>").
type DocTree struct {
	Name     string
	Children []*DocTree
	re       *regexp.Regexp
}

// ReadDocTree reads the first fenced block under "## The actor tree" in
// the markdown file at path.
func ReadDocTree(t testing.TB, path string) *DocTree {
	t.Helper()
	b, err := os.ReadFile(path)
	NoError(t, err)
	doc := string(b)
	i := strings.Index(doc, "\n## The actor tree")
	if i < 0 {
		t.Fatalf("%s has no \"## The actor tree\" section", path)
	}
	doc = doc[i:]
	start := strings.Index(doc, "```\n")
	end := strings.Index(doc[start+4:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("%s: the actor tree section has no fenced block", path)
	}
	var root *DocTree
	var stack []*DocTree // stack[d] is the last node at depth d
	for n, line := range strings.Split(doc[start+4:start+4+end], "\n") {
		name, depth, ok := docTreeLine(line, n == 0)
		if !ok {
			continue
		}
		node := &DocTree{Name: name, re: docTreeName(name)}
		if depth == 0 {
			root, stack = node, []*DocTree{node}
			continue
		}
		if root == nil || depth > len(stack) {
			t.Fatalf("%s: tree line %q is deeper than its parent", path, line)
		}
		stack = stack[:depth]
		stack[depth-1].Children = append(stack[depth-1].Children, node)
		stack = append(stack, node)
	}
	if root == nil {
		t.Fatalf("%s: the actor tree is empty", path)
	}
	return root
}

// docTreeLine is a node's name and depth, or !ok for a line that goes on
// describing the node above it. Every level is indented 4 columns.
func docTreeLine(line string, first bool) (name string, depth int, ok bool) {
	if first {
		name = docTreeWord(line)
		return name, 0, name != ""
	}
	i := strings.Index(line, "── ")
	if i < 0 {
		return "", 0, false
	}
	col := utf8.RuneCountInString(line[:i]) + 3 // the name's column
	name = docTreeWord(line[i+len("── "):])
	return name, col / 4, name != ""
}

// docTreeWord is the name s starts with: up to a space outside <…>.
func docTreeWord(s string) string {
	depth := 0
	for i, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>':
			depth--
		case r == ' ' && depth == 0:
			return s[:i]
		}
	}
	return s
}

var docPlaceholder = regexp.MustCompile(`<[^>]+>|\$N`)

func docTreeName(name string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range docPlaceholder.FindAllStringIndex(name, -1) {
		b.WriteString(regexp.QuoteMeta(name[last:m[0]]))
		if name[m[0]:m[1]] == "$N" {
			b.WriteString(`\$[^/]+`)
		} else {
			b.WriteString(`[^/]+`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(name[last:]) + "$")
	return regexp.MustCompile(b.String())
}

// Place is the path of doc names an actor id stands for
// ("troupe/sessions/<session id>/run$N"), or "" when the drawing has no
// place for it. A segment matches a literal name before a pattern.
func (d *DocTree) Place(id string) string {
	segs := strings.Split(id, "/")
	if !d.re.MatchString(segs[0]) {
		return ""
	}
	path, node := []string{d.Name}, d
	for _, seg := range segs[1:] {
		next := node.child(seg)
		if next == nil {
			return ""
		}
		path, node = append(path, next.Name), next
	}
	return strings.Join(path, "/")
}

func (d *DocTree) child(seg string) *DocTree {
	var pattern *DocTree
	for _, c := range d.Children {
		if c.Name == seg {
			return c
		}
		if pattern == nil && c.re.MatchString(seg) {
			pattern = c
		}
	}
	return pattern
}

// CheckTree fails t unless every live actor id has a place in the drawing
// and every place in want was seen live.
func CheckTree(t testing.TB, doc *DocTree, live []string, want ...string) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range live {
		place := doc.Place(id)
		if place == "" {
			t.Errorf("actor %q has no place in ARCHITECTURE.md's tree", id)
			continue
		}
		seen[place] = true
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no live actor stands at %q; live: %s", w, strings.Join(live, " "))
		}
	}
}
