package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/testkit/pgtest"
)

// pgCluster is n `troupe daemon --cluster` binaries on loopback sharing
// one PostgreSQL database, automanaged membership, the scripted model.
type pgCluster struct {
	name    string
	store   string   // the database's URL
	peers   []string // each member's membership address
	homes   []string
	env     []string
	args    func(i int) []string // member i's own flags (nil: none)
	members []*daemonProc
}

// startPGCluster starts n members answering with reply (each member's
// extra flags from args, which may be nil) and waits until every member
// sees all n.
func startPGCluster(t testing.TB, n int, name string, reply llmserver.Reply, args func(i int) []string, flags ...string) *pgCluster {
	t.Helper()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &reply})
	return startPGClusterOn(t, n, name, srv, args, flags...)
}

// startPGClusterOn is startPGCluster against a model server of the
// caller's script; flags go to every member.
func startPGClusterOn(t testing.TB, n int, name string, srv *llmserver.Server, args func(i int) []string, flags ...string) *pgCluster {
	t.Helper()
	c := &pgCluster{name: name, store: pgtest.Database(t), peers: clusterPorts(t, n),
		env: []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		args: func(i int) []string {
			var own []string
			if args != nil {
				own = args(i)
			}
			return append(append([]string(nil), flags...), own...)
		}}
	for range n {
		c.homes = append(c.homes, t.TempDir())
	}
	for i := range n {
		c.members = append(c.members, c.start(t, i))
	}
	c.waitMembers(t, c.members, n)
	return c
}

// start runs member i on its home (again, after a kill).
func (c *pgCluster) start(t testing.TB, i int) *daemonProc {
	t.Helper()
	args := append([]string{"--provider", "openai", "--model", "tiny", "--approval-mode", "yolo", "--store", c.store,
		"--cluster", c.name, "--cluster-membership", c.peers[i], "--cluster-peers", strings.Join(c.peers, ",")}, c.args(i)...)
	return startDaemonBinary(t, c.homes[i], c.env, args...)
}

// waitMembers waits until each of ds sees want members.
func (c *pgCluster) waitMembers(t testing.TB, ds []*daemonProc, want int) {
	t.Helper()
	for _, d := range ds {
		testkit.Eventually(t, 60*time.Second, fmt.Sprintf("%d members", want), func() bool {
			h := clusterHealth(t, d)
			return h != nil && len(h.Members) == want
		})
	}
}

// self is member i's cluster address.
func (c *pgCluster) self(t testing.TB, i int) string { return clusterHealth(t, c.members[i]).Self }
