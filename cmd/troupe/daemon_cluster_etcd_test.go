package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/etcdtest"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/testkit/pgtest"
)

// Three `troupe daemon --cluster` processes whose membership is a real
// etcd (--cluster-etcd), sharing one PostgreSQL store: every member's
// /v1/health names all three, each at the address it put in etcd (its
// --cluster-bind host); a session created over ACP on one member is
// prompted over ACP on another and both clients see the answer. A member
// stopped with SIGTERM leaves every other member's topology (it deletes
// its key), a member killed with SIGKILL too (its etcd lease runs out),
// and the session still answers on the member left.
func TestDaemonClusterOnEtcd(t *testing.T) {
	const answer = "answered with etcd membership"
	etcd := etcdtest.Start(t)
	store := pgtest.Database(t)
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: ptr(llmserver.Steps(llmserver.Text(answer)))})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	flags := []string{"--provider", "openai", "--model", "tiny", "--approval-mode", "yolo", "--store", store, "--lease-ttl", "3s",
		"--cluster", "etcd-test", "--cluster-bind", "127.0.0.1:0", "--cluster-etcd", etcd.Endpoint}
	// Each member's start waits a second in the library's StartMember:
	// the three start together.
	bin := testkit.BuildTroupe(t)
	var procs []*testkit.Proc
	var homes []string
	for range 3 {
		home := t.TempDir()
		homes = append(homes, home)
		procs = append(procs, testkit.Start(t, bin, env, append([]string{"daemon", "--home", home, "--listen", "127.0.0.1:0"}, flags...)...))
	}
	var members []*daemonProc
	for i, p := range procs {
		members = append(members, daemonOf(t, binaryDaemon{p}, homes[i]))
	}
	var selves []string
	for _, d := range members {
		testkit.Eventually(t, 30*time.Second, "a member sees three members", func() bool {
			c := clusterHealth(t, d)
			return c != nil && len(c.Members) == 3
		})
		self := clusterHealth(t, d).Self
		if !strings.HasPrefix(self, "127.0.0.1:") {
			t.Fatalf("a member's remote address %q is not on its --cluster-bind host", self)
		}
		selves = append(selves, self)
	}
	slices.Sort(selves)
	for _, d := range members {
		testkit.Equal(t, strings.Join(memberAddresses(t, d), " "), strings.Join(selves, " "))
	}

	a := members[0].dialACP(t, "on-a")
	sid, _ := a.NewSession(t.TempDir())
	b := members[1].dialACP(t, "on-b")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	id := b.Prompt(sid, "hello")
	if got := chunksUntil(b, func(f acpclient.Frame) bool { return f.Answers(id) }); !strings.Contains(got, answer) {
		t.Fatalf("member B's client saw no answer chunk %q: %s", answer, got)
	}
	if got := chunksUntil(a, func(f acpclient.Frame) bool { return strings.Contains(string(f.Raw), `"turn_complete"`) }); !strings.Contains(got, answer) {
		t.Fatalf("member A's client saw no answer chunk %q: %s", answer, got)
	}

	// Stopped: the member deletes its key as it leaves.
	stopped := clusterHealth(t, members[2]).Self
	members[2].proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, members[2].proc.Wait(t, acpWait), 0)
	for _, d := range members[:2] {
		testkit.Eventually(t, 30*time.Second, "a member sees the stopped one leave", func() bool {
			return !slices.Contains(memberAddresses(t, d), stopped) && len(memberAddresses(t, d)) == 2
		})
	}

	// Killed: its key goes when its lease's TTL runs out.
	members[1].proc.Kill()
	self := clusterHealth(t, members[0]).Self
	testkit.Eventually(t, 30*time.Second, "the member left sees the killed one leave", func() bool {
		return slices.Equal(memberAddresses(t, members[0]), []string{self})
	})

	if f := a.WaitAnswer(a.Prompt(sid, "again")); f.Error != nil {
		t.Fatalf("a prompt on the member left: %s", f.Raw)
	}
}

// memberAddresses are the members d's /v1/health names, sorted.
func memberAddresses(t *testing.T, d *daemonProc) []string {
	t.Helper()
	c := clusterHealth(t, d)
	if c == nil {
		t.Fatal("the daemon's health has no cluster")
	}
	var addrs []string
	for _, m := range c.Members {
		addrs = append(addrs, m.Address)
	}
	slices.Sort(addrs)
	return addrs
}

// chunksUntil is every agent_message_chunk c reads until cond.
func chunksUntil(c *acpclient.Client, cond func(acpclient.Frame) bool) string {
	var text strings.Builder
	for _, f := range c.Until(cond) {
		if strings.Contains(string(f.Raw), `"agent_message_chunk"`) {
			text.WriteString(string(f.Raw))
		}
	}
	return text.String()
}

// --cluster-etcd is the whole membership: given with the automanaged
// provider's flags, without --cluster, with an endpoint etcd's client
// does not dial or with a password in it (never printed), or with a bind
// host other members cannot dial, the daemon refuses to start and says
// why.
func TestDaemonClusterEtcdRefusesWhatItCannotUse(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "x", "--cluster-etcd", "http://127.0.0.1:1", "--cluster-peers", "127.0.0.1:2"}, "without --cluster-membership and --cluster-peers"},
		{[]string{"--cluster", "x", "--cluster-etcd", "http://127.0.0.1:1", "--cluster-membership", "127.0.0.1:2"}, "without --cluster-membership and --cluster-peers"},
		{[]string{"--cluster-etcd", "http://127.0.0.1:1"}, "need --cluster"},
		{[]string{"--cluster", "x", "--cluster-etcd", "ftp://127.0.0.1:1"}, "http, https, unix or unixs"},
		{[]string{"--cluster", "x", "--cluster-etcd", "http://127.0.0.1:1,"}, "an empty endpoint"},
		{[]string{"--cluster", "x", "--cluster-etcd", "http://root:secret@127.0.0.1:1"}, "carries user information"},
		{[]string{"--cluster", "x", "--cluster-etcd", "http://127.0.0.1:1", "--cluster-bind", "0.0.0.0:0"}, "the address other members dial"},
	} {
		r := cli(t, nil, "", append([]string{"daemon", "--home", t.TempDir(), "--listen", "127.0.0.1:0"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "secret") {
			t.Errorf("troupe daemon %s: exit %d, stderr %q (want 2 and %q)", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}

// A member whose etcd has gone still stops on SIGTERM, and cleanly: its
// leaving (deleting its key) is given up after a bound, the key left to
// its lease, instead of waiting for an etcd that does not answer.
func TestDaemonClusterEtcdStopsWithoutItsEtcd(t *testing.T) {
	etcd := etcdtest.Start(t)
	d := startDaemonBinary(t, t.TempDir(), nil, "--cluster", "gone", "--cluster-etcd", etcd.Endpoint)
	testkit.Eventually(t, 30*time.Second, "the member sees itself", func() bool { c := clusterHealth(t, d); return c != nil && len(c.Members) == 1 })
	testkit.NoError(t, etcd.Stop())
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)
	if !strings.Contains(d.proc.Stderr(), "the key goes when its lease runs out") {
		t.Fatalf("the member did not say it left its key to the lease:\n%s", d.proc.Stderr())
	}
}

// The grain kinds a member hosts reach the others through etcd as they do
// through the automanaged provider: with --cluster-workspaces, sessions
// made in a member's root are placed on it, whichever member made them.
func TestDaemonClusterOnEtcdPlacesByWorkspace(t *testing.T) {
	etcd := etcdtest.Start(t)
	store := pgtest.Database(t)
	roots := []string{t.TempDir(), t.TempDir()}
	bin := testkit.BuildTroupe(t)
	var procs []*testkit.Proc
	var homes []string
	for _, root := range roots {
		home := t.TempDir()
		homes = append(homes, home)
		procs = append(procs, testkit.Start(t, bin, nil, "daemon", "--home", home, "--listen", "127.0.0.1:0",
			"--store", store, "--cluster", "ws-etcd", "--cluster-etcd", etcd.Endpoint, "--cluster-workspaces", root))
	}
	var members []*daemonProc
	for i, p := range procs {
		members = append(members, daemonOf(t, binaryDaemon{p}, homes[i]))
	}
	for _, d := range members {
		testkit.Eventually(t, 30*time.Second, "two members", func() bool { c := clusterHealth(t, d); return c != nil && len(c.Members) == 2 })
	}
	clients := []*acpclient.Client{members[0].dialACP(t, "a"), members[1].dialACP(t, "b")}
	for i, root := range roots {
		for n := range 2 {
			cwd := filepath.Join(root, "project"+strconv.Itoa(n))
			testkit.NoError(t, os.Mkdir(cwd, 0o700))
			clients[1-i].NewSession(cwd)
		}
	}
	for i, d := range members {
		testkit.Equal(t, hostOf(t, members[1-i], clusterHealth(t, d).Self), 2)
	}
}
