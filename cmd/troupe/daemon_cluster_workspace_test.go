package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit/acpclient"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// In a cluster sharing a store any member may host a session, and its
// tools run there: a session whose workspace is not on the member
// hosting it is reported, its run ending with an error that names the
// workspace and the member, and no model is called; with the workspace
// back, the same session runs.
func TestDaemonClusterReportsAMissingWorkspace(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: ptr(llmserver.Steps(llmserver.Text("ran in the workspace")))})
	d := startPGClusterOn(t, 1, "ws", srv, nil).members[0]

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

// Members that name their workspace roots (--cluster-workspaces) host the
// sessions under them: sessions created through either member are placed
// on the member that has their workspace, prompted from the other; with
// that member gone, a prompt is refused with an error that names the
// root, not run on a member without it.
func TestDaemonClusterPlacesSessionsWhereTheirWorkspaceIs(t *testing.T) {
	roots := []string{t.TempDir(), t.TempDir()}
	cl := startPGCluster(t, 2, "ws", llmserver.Steps(llmserver.Text("ran where the workspace is")),
		func(i int) []string { return []string{"--cluster-workspaces", roots[i]} }, "--lease-ttl", "3s")
	members := cl.members
	self := []string{cl.self(t, 0), cl.self(t, 1)}

	// Each member creates sessions in the other's workspace.
	clients := []*acpclient.Client{members[0].dialACP(t, "a"), members[1].dialACP(t, "b")}
	ids := [2][]string{}
	for i := range 2 {
		for n := range 3 {
			cwd := filepath.Join(roots[i], "project"+strconv.Itoa(n))
			testkit.NoError(t, os.Mkdir(cwd, 0o700))
			id, _ := clients[1-i].NewSession(cwd)
			ids[i] = append(ids[i], id)
		}
	}
	for i := range 2 {
		testkit.Equal(t, hostOf(t, members[i], self[i]), 3)
	}
	if f := clients[1].WaitAnswer(clients[1].Prompt(ids[0][0], "go")); f.Error != nil {
		t.Fatalf("a prompt through the member without the workspace: %s", f.Raw)
	}

	// Without the member that has them, the sessions are refused.
	members[1].proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, members[1].proc.Wait(t, acpWait), 0)
	testkit.Eventually(t, 30*time.Second, "one member", func() bool { c := clusterHealth(t, members[0]); return c != nil && len(c.Members) == 1 })
	f := clients[0].WaitAnswer(clients[0].Prompt(ids[1][0], "go"))
	if f.Error == nil || !strings.Contains(f.Raw, "no member of the cluster offers the session's workspace") || !strings.Contains(f.Raw, roots[1]) {
		t.Fatalf("a prompt whose workspace no member has: %s", f.Raw)
	}
	clients[0].Attach(map[string]any{"sessionId": ids[0][1], "historyPolicy": "full"})
	if f := clients[0].WaitAnswer(clients[0].Prompt(ids[0][1], "go")); f.Error != nil {
		t.Fatalf("a prompt in the remaining member's workspace: %s", f.Raw)
	}
}
