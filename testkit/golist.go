package testkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// Package is what GoList reports of one package.
type Package struct {
	ImportPath string
	Imports    []string // direct
	Deps       []string // every package it links, directly or not, standard library included
}

// GoList lists the packages args match (go list flags such as -deps may
// come first) with their imports, direct and all, through `go list`, for
// tests that keep the layering honest.
func GoList(t testing.TB, args ...string) []Package {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}
