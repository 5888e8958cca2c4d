package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// thirdPartyTesting are the libraries whose own non-test files import
// package testing, which the binary then links (size only: testing
// registers its flags in testing.Init, which nothing calls).
// google.golang.org/genai: its replay client (replay_api_client.go,
// replay_sanitizer.go), part of the official Gemini SDK the provider uses.
var thirdPartyTesting = []string{"google.golang.org/genai"}

// The production binary links no package testing through troupe's own
// code: troupe sim runs its scenarios with testkit/sim, testkit/llmserver
// and testkit/subprocess, which keep off it (and off testkit itself, the
// helpers of tests). Of the libraries, only those in thirdPartyTesting
// may bring it in.
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
		// Name the packages that bring it in, to cut the chain.
		var by []string
		for _, p := range testkit.GoList(t, "-deps", module+"cmd/troupe") {
			if slices.Contains(p.Imports, banned) && (banned != "testing" || !slices.Contains(thirdPartyTesting, p.ImportPath)) {
				by = append(by, strings.TrimPrefix(p.ImportPath, module))
			}
		}
		if len(by) > 0 {
			t.Errorf("cmd/troupe links %s, imported by %v", banned, by)
		}
	}
}
