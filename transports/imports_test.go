// Package transports_test keeps the transports on the session facade: a
// transport may import the facade (actors/sessions), the event schema
// (persistence/event), the contract with its supervisor
// (actors/transports), its own codec and the other transports' shared
// packages, never the engine's insides or the store.
package transports_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/troupehq/troupe/"

// allowed are the troupe packages a transport may import, besides its
// siblings under transports/.
var allowed = map[string]string{
	"actors/sessions":   "the session facade",
	"persistence/event": "the event schema and its vocabulary",
	"actors/actorlog":   "every actor's logger and its report of unhandled messages",
	"actors/transports": "the transports supervisor's contract: Done, Terminate",
	// The conversation fold is shared with the engine until the
	// projection kit takes its place.
	"runtime/conversation": "the model's history folded from events",
}

func TestTransportsImportOnlyTheFacade(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"transports/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	packages := 0
	for {
		var pkg struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		packages++
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			rel := strings.TrimPrefix(imp, module)
			if _, ok := allowed[rel]; ok || strings.HasPrefix(rel, "transports/") {
				continue
			}
			t.Errorf("%s imports %s: a transport reaches sessions only through actors/sessions and reads only persistence/event", pkg.ImportPath, imp)
		}
	}
	if packages < 3 {
		t.Fatalf("go list found %d transport packages, want at least rpc, jsonstream and stdio", packages)
	}
}
