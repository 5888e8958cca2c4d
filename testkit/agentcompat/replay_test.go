package agentcompat

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/agentcompat/acprec"
)

// Each agent's recording (testdata/<agent>, made by `make acp-agents
// UPDATE=1` from the real npm agent) is played by troupe-acpreplay to a
// fresh troupe daemon while the matrix's rows drive it again: every
// message the daemon sends the agent (initialize, session/new and
// session/load with the session's cwd, prompts, the permission answer a
// watching client's choice makes, session/cancel, the answers to the
// agent's own requests) must equal the recorded one, paths normalised,
// and each row must pass its checks on what the clients see (the streamed
// reply, the permission resolved by the watcher, stopReason cancelled,
// the load after kill and after a restart), in as many agent starts as
// were recorded. What the real model did (the tool's file, the agent
// remembering the first turn) is the matrix's, not this test's.
func TestReplayRecordedAgents(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*"))
	testkit.NoError(t, err)
	if len(dirs) == 0 {
		t.Fatal("no recordings in testdata")
	}
	troupe := testkit.BuildTroupe(t)
	replay := filepath.Join(t.TempDir(), "troupe-acpreplay")
	if out, err := exec.Command("go", "build", "-o", replay, "github.com/troupehq/troupe/testkit/cmd/troupe-acpreplay").CombinedOutput(); err != nil {
		t.Fatalf("go build troupe-acpreplay: %v\n%s", err, out)
	}
	for _, dir := range dirs {
		id := filepath.Base(dir)
		t.Run(id, func(t *testing.T) {
			recDir, err := filepath.Abs(dir)
			testkit.NoError(t, err)
			recorded, err := acprec.ReadRecordings(recDir)
			testkit.NoError(t, err)
			w := &world{agentID: id, rec: t.TempDir(), cwd: t.TempDir()}
			home := t.TempDir()
			AgentHome(t, home, map[string]Agent{id: {Command: replay, Args: []string{recDir, w.rec, w.cwd, home}}})
			w.d = &Daemon{Troupe: troupe, Home: home, Owner: t}
			w.d.Start(t)
			for _, r := range rows {
				if out := w.run(t, r); out.Status != OK {
					t.Errorf("row %s: %s %s", r.name, out.Status, out.Reason)
				}
			}
			b, err := os.ReadFile(filepath.Join(w.rec, acprec.Mismatches))
			switch {
			case err == nil:
				t.Errorf("troupe sent the agent what the recording does not have (a deliberate change is re-recorded from the real agents with `make acp-agents UPDATE=1`, README.md \"Real ACP agents from npm\"):\n%s", b)
			case !errors.Is(err, os.ErrNotExist):
				t.Fatal(err)
			}
			played, err := acprec.ReadRecordings(w.rec)
			testkit.NoError(t, err)
			testkit.Equal(t, len(played), len(recorded))
		})
	}
}
