package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// The production binary links no package testing: troupe sim runs its
// scenarios with testkit/sim, testkit/llmserver and testkit/subprocess,
// which keep off it (and off testkit itself, the helpers of tests).
func TestBinaryLinksNoTesting(t *testing.T) {
	const module = "github.com/troupehq/troupe/"
	bin := testkit.GoList(t, module+"cmd/troupe")
	if len(bin) != 1 || len(bin[0].Deps) < 50 {
		t.Fatalf("go list cmd/troupe: %+v", bin)
	}
	deps := bin[0].Deps
	if !slices.Contains(deps, module+"testkit/sim") {
		t.Fatalf("the binary no longer links testkit/sim: the check below checks nothing of troupe sim")
	}
	for _, banned := range []string{"testing", module + "testkit"} {
		if !slices.Contains(deps, banned) {
			continue
		}
		// Name the troupe packages that bring it in, to cut the chain.
		var by []string
		for _, p := range testkit.GoList(t, module+"...") {
			if slices.Contains(deps, p.ImportPath) && slices.Contains(p.Imports, banned) {
				by = append(by, strings.TrimPrefix(p.ImportPath, module))
			}
		}
		t.Errorf("cmd/troupe links %s, imported by %v", banned, by)
	}
}
