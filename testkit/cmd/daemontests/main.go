// Command daemontests sorts a package's top-level Test functions by how
// they start `troupe daemon`: in the test's process (they reach
// startDaemon), as the binary (they reach startDaemonBinary or daemonOf, or
// run the binary with "daemon" and start, restart, --home or --listen),
// both (a binary killed, then a daemon in-process), or none. Calls are
// followed through the package's own functions and methods, a method call
// by its name alone (an over-approximation -v lets one check).
//
//	go run ./testkit/cmd/daemontests [-v] cmd/troupe
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

type fn struct {
	calls  map[string]bool
	inproc bool
	binary bool
}

func main() {
	args := os.Args[1:]
	verbose := len(args) > 0 && args[0] == "-v"
	if verbose {
		args = args[1:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: daemontests [-v] DIR")
		os.Exit(2)
	}
	dir := args[0]
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	funcs := map[string]*fn{}
	var tests []string
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv == nil && strings.HasPrefix(name, "Test") {
				tests = append(tests, name)
			}
			info := funcs[name]
			if info == nil {
				info = &fn{calls: map[string]bool{}}
				funcs[name] = info
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				// A starter passed as a value counts as called.
				if id, ok := n.(*ast.Ident); ok {
					switch id.Name {
					case "startDaemon":
						info.inproc = true
					case "startDaemonBinary", "daemonOf":
						info.binary = true
					}
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var callee string
				switch c := call.Fun.(type) {
				case *ast.Ident:
					callee = c.Name
				case *ast.SelectorExpr:
					callee = c.Sel.Name
				}
				switch callee {
				case "startDaemon":
					info.inproc = true
				case "startDaemonBinary", "daemonOf":
					info.binary = true
				default:
					info.calls[callee] = true
				}
				for i, a := range call.Args {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Value == `"daemon"` && i+1 < len(call.Args) {
						if next, ok := call.Args[i+1].(*ast.BasicLit); ok {
							v, _ := strconv.Unquote(next.Value)
							if v == "start" || v == "restart" || v == "--home" || v == "--listen" {
								info.binary = true
							}
						}
					}
				}
				return true
			})
		}
	}
	memo := map[string][2]bool{}
	var reach func(string, map[string]bool) (bool, bool)
	reach = func(name string, seen map[string]bool) (bool, bool) {
		if r, ok := memo[name]; ok {
			return r[0], r[1]
		}
		f := funcs[name]
		if f == nil || seen[name] {
			return false, false
		}
		seen[name] = true
		in, bin := f.inproc, f.binary
		for c := range f.calls {
			ci, cb := reach(c, seen)
			in, bin = in || ci, bin || cb
		}
		return in, bin
	}
	sort.Strings(tests)
	var inOnly, binOnly, both, none int
	for _, t := range tests {
		in, bin := reach(t, map[string]bool{})
		kind := "none"
		switch {
		case in && bin:
			both++
			kind = "both"
		case in:
			inOnly++
			kind = "in-process"
		case bin:
			binOnly++
			kind = "binary"
		default:
			none++
		}
		if verbose && kind != "none" {
			fmt.Printf("%-10s %s\n", kind, t)
		}
	}
	fmt.Printf("Test functions: %d; start a daemon in-process only: %d, as the binary only: %d, both: %d; no daemon: %d\n",
		len(tests), inOnly, binOnly, both, none)
}
