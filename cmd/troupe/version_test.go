package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/testkit"
)

// troupe version says what was built: a link-time version as given, and
// for a build with neither a module version nor a VCS stamp
// (-buildvcs=false) "dev" saying so (issue 25, item 22). The builds
// differ from testkit's only in what they link, so they take seconds.
func TestVersionSaysWhatWasBuilt(t *testing.T) {
	dir := t.TempDir()
	schema := persistence.SchemaVersion()
	for _, c := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"novcs", []string{"-buildvcs=false"}, fmt.Sprintf("troupe dev (a development build with no version or VCS stamp) (store schema %d)\n", schema)},
		{"linked", []string{"-buildvcs=false", "-ldflags", "-X main.version=v9.8.7"}, fmt.Sprintf("troupe v9.8.7 (store schema %d)\n", schema)},
	} {
		bin := filepath.Join(dir, c.name)
		args := append(append([]string{"build", "-o", bin}, c.flags...), "github.com/troupehq/troupe/cmd/troupe")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		r, err := runCLI(bin, nil, "", "version")
		testkit.NoError(t, err)
		testkit.Equal(t, r.stdout, c.want)
	}
}

// A build from a checkout is named by its commit, marked when the tree
// had changes; a module build by its module version.
func TestBuildVersionFromBuildInfo(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	testkit.Equal(t, buildVersion(vcs("1fee20523546aa0b1c2d3e4f5a6b7c8d9e0f1a2b", "false")), "devel-1fee20523546")
	testkit.Equal(t, buildVersion(vcs("1fee20523546aa0b1c2d3e4f5a6b7c8d9e0f1a2b", "true")), "devel-1fee20523546-dirty")
	testkit.Equal(t, buildVersion(&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}), "v1.4.0")
	testkit.Equal(t, buildVersion(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}), devVersion)
}
