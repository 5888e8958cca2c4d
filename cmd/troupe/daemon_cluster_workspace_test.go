package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/testkit/pgtest"
)

// In a cluster sharing a store any member may host a session, and its
// tools run there: a session whose workspace is not on the member
// hosting it is reported, its run ending with an error that names the
// workspace and the member, and no model is called; with the workspace
// back, the same session runs.
func TestDaemonClusterReportsAMissingWorkspace(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: ptr(llmserver.Steps(llmserver.Text("ran in the workspace")))})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	peers := clusterPorts(t, 1)
	d := startDaemonBinary(t, t.TempDir(), env, "--provider", "openai", "--model", "tiny", "--approval-mode", "yolo",
		"--store", pgtest.Database(t), "--cluster", "ws", "--cluster-membership", peers[0], "--cluster-peers", peers[0])
	testkit.Eventually(t, 30*time.Second, "the member sees itself", func() bool { c := clusterHealth(t, d); return c != nil && len(c.Members) == 1 })

	work := t.TempDir()
	c := d.dialACP(t, "editor")
	id, _ := c.NewSession(work)
	testkit.NoError(t, os.Remove(work))
	calls := len(srv.Requests())
	f := c.WaitAnswer(c.Prompt(id, "build it"))
	if f.Error == nil || !strings.Contains(f.Raw, work) || !strings.Contains(f.Raw, "is not on cluster member") {
		t.Fatalf("a prompt without its workspace: %s", f.Raw)
	}
	testkit.Equal(t, len(srv.Requests()), calls)

	testkit.NoError(t, os.Mkdir(work, 0o700))
	if f := c.WaitAnswer(c.Prompt(id, "build it")); f.Error != nil {
		t.Fatalf("a prompt with its workspace back: %s", f.Raw)
	}
	if len(srv.Requests()) == calls {
		t.Fatal("the run with its workspace back called no model")
	}
}
