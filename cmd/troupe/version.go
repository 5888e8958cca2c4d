package main

import (
	"runtime/debug"
	"sync"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise
// the build info says what was built (buildVersion).
var version = ""

// devVersion is the version of a build that carries none: no link-time
// version, no module version (a build inside the module's own tree) and
// no VCS stamp (-buildvcs=false, or built outside a checkout).
const devVersion = "dev"

// currentVersion is read once: every process asks for it while its command
// tree is built (the root's --version, its template) and again when it
// answers, and debug.ReadBuildInfo parses the whole module list each time.
var currentVersion = sync.OnceValue(func() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return devVersion
	}
	return buildVersion(bi)
})

// buildVersion is the module version a build was made at (`go install
// …@v1.2.3`), else the commit its checkout was at, "-dirty" when the
// tree had changes; else devVersion.
func buildVersion(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return devVersion
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}
