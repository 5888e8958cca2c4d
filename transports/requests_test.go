package transports_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// nonBlocking are the session client's methods a transport may call
// itself: Async (every request, answered on the transport's mailbox), and
// two that wait for nothing.
var nonBlocking = map[string]bool{"Async": true, "Unsubscribe": true, "StorePath": true}

// handlerPackages run no actor: rest serves each HTTP request on its own
// net/http goroutine, hugind each bridge request on a goroutine of its
// own, mcp each tool call on the MCP SDK's goroutine, hydraverbs each
// slash command on its run's stream goroutine (the engine's provider call)
// and what follows one on a goroutine of its own; none is an actor's
// Receive, so they may wait for an answer (bounded by the call's context).
var handlerPackages = map[string]bool{"rest": true, "hugind": true, "mcp": true, "hydraverbs": true}

// One request style toward sessions, never blocking a mailbox: transport
// code calls the session client only through Async, and waits on no
// future. A syntactic check: the client is reached as <x>.Sessions.
func TestTransportsAskSessionsOnlyAsync(t *testing.T) {
	files, err := filepath.Glob("*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || handlerPackages[filepath.Dir(path)] {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if recv, ok := sel.X.(*ast.SelectorExpr); ok && recv.Sel.Name == "Sessions" && !nonBlocking[sel.Sel.Name] {
				t.Errorf("%s: Sessions.%s blocks; use Sessions.Async(ctx).%s", fset.Position(call.Pos()), sel.Sel.Name, sel.Sel.Name)
			}
			if sel.Sel.Name == "Result" && len(call.Args) == 0 {
				t.Errorf("%s: waiting on a future blocks the mailbox; use ReenterAfter", fset.Position(call.Pos()))
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files, want the transports' sources", checked)
	}
}
