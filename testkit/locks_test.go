package testkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLockInventory keeps ARCHITECTURE.md's "Locks beside the actors"
// honest: every sync.Mutex, sync.RWMutex and sync.Map declared in non-test
// code (a struct field, a package variable or a function's variable) is
// named in its table as `dir.Type.field`, `dir.var` or `dir.func.var`, and
// the table names none that no longer exists.
func TestLockInventory(t *testing.T) {
	root := ".."
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := lockSection(t, string(doc))
	found := declaredLocks(t, root)
	if len(found) == 0 {
		t.Fatal("no locks found: the walk is broken")
	}
	for _, key := range found {
		if !strings.Contains(section, "`"+key+"`") {
			t.Errorf("%s is not in ARCHITECTURE.md's lock table", key)
		}
	}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		key := strings.SplitN(strings.TrimPrefix(line, "| `"), "`", 2)[0]
		if !slices.Contains(found, key) {
			t.Errorf("ARCHITECTURE.md's lock table names %s, which the code does not declare", key)
		}
	}
}

// lockSection is the text of "## Locks beside the actors", up to the next
// section.
func lockSection(t *testing.T, doc string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## Locks beside the actors\n")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "## Locks beside the actors"`)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// declaredLocks walks root's non-test Go files for declarations of a
// sync.Mutex, sync.RWMutex or sync.Map (or a pointer to one).
func declaredLocks(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		out = append(out, locksIn(f, filepath.ToSlash(rel))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// locksIn names the locks f declares, prefixed by its directory.
func locksIn(f *ast.File, dir string) []string {
	var out []string
	var fn string // the enclosing function, for its variables
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				saved := fn
				fn = n.Name.Name
				ast.Inspect(n.Body, walk)
				fn = saved
			}
			return false
		case *ast.TypeSpec:
			st, ok := n.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if !isLock(field.Type) {
					continue
				}
				for _, name := range field.Names {
					out = append(out, dir+"."+n.Name.Name+"."+name.Name)
				}
				if len(field.Names) == 0 {
					out = append(out, dir+"."+n.Name.Name+"."+lockName(field.Type))
				}
			}
			return false
		case *ast.ValueSpec:
			if n.Type == nil || !isLock(n.Type) {
				return true
			}
			for _, name := range n.Names {
				if fn == "" {
					out = append(out, dir+"."+name.Name)
				} else {
					out = append(out, dir+"."+fn+"."+name.Name)
				}
			}
		}
		return true
	}
	ast.Inspect(f, walk)
	return out
}

// isLock reports whether e is sync.Mutex, sync.RWMutex, sync.Map or a
// pointer to one.
func isLock(e ast.Expr) bool {
	return lockName(e) != ""
}

func lockName(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || pkg.Name != "sync" {
		return ""
	}
	switch sel.Sel.Name {
	case "Mutex", "RWMutex", "Map":
		return sel.Sel.Name
	}
	return ""
}
