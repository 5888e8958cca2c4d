package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/troupehq/troupe/persistence"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise
// the module version from the build info is used.
var version = ""

func currentVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func runVersion(_ []string, _ io.Reader, stdout, _ io.Writer) int {
	fmt.Fprintf(stdout, "troupe %s (store schema %d)\n", currentVersion(), persistence.SchemaVersion())
	return 0
}
