package actors_test

import (
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

const module = "github.com/troupehq/troupe/"

// layer of a troupe package: a package may import its own layer and the
// ones below it (a smaller number), never one above.
func layer(rel string) int {
	switch {
	case strings.HasPrefix(rel, "cmd/"):
		return 5
	case rel == "actors": // the guardian, which composes the tree
		return 4
	// The daemon's assembly composes the tree with every transport it
	// serves (it boots the runtime and spawns the plugin supervisors
	// under the guardian), so it sits beside the guardian; no other
	// transport may reach the guardian.
	case rel == "transports/daemon":
		return 4
	case strings.HasPrefix(rel, "transports/"):
		return 3
	case strings.HasPrefix(rel, "actors/"):
		return 2
	case strings.HasPrefix(rel, "runtime/"):
		return 1 // the libraries actors use
	case strings.HasPrefix(rel, "persistence"):
		return 0
	}
	return -1 // testkit and its commands sit outside the layers
}

// The folder tree is layered: boot (and the daemon's assembly) above the transports, the transports
// above the actors, the actors above the libraries they use, the store
// below everything.
func TestPackagesImportOnlyDownwards(t *testing.T) {
	pkgs := testkit.GoList(t, module+"...")
	checked := 0
	for _, pkg := range pkgs {
		from := layer(strings.TrimPrefix(pkg.ImportPath, module))
		if from < 0 {
			continue
		}
		checked++
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if to := layer(strings.TrimPrefix(imp, module)); to > from {
				t.Errorf("%s imports %s, a layer above it", pkg.ImportPath, imp)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d packages: go list found too few", checked)
	}
}

// The session, its queue, its run and its tool calls are the facade's
// insides: the compiler refuses an import of actors/sessions/internal/...
// from outside actors/sessions; this says so where a reader looks, and
// counts the ones inside, so a move that empties internal/ fails here.
func TestOnlyTheFacadeReachesTheSessionsInsides(t *testing.T) {
	const inside = module + "actors/sessions/internal/"
	users := 0
	for _, pkg := range testkit.GoList(t, module+"...") {
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, inside) {
				continue
			}
			if !strings.HasPrefix(pkg.ImportPath, module+"actors/sessions") {
				t.Errorf("%s imports %s, behind the sessions facade", pkg.ImportPath, imp)
			}
			users++
		}
	}
	if users == 0 {
		t.Fatal("nothing imports actors/sessions/internal: go list found none, or the session moved")
	}
}
