package main

import (
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/daemonclient"
)

// clusterPorts are n loopback ports for the members' automanaged
// membership listeners. The provider's peers are a fixed list, so each
// member must know every member's port before any starts: the ports are
// taken from the kernel (port 0) and released for the members to bind.
func clusterPorts(t testing.TB, n int) []string {
	t.Helper()
	var addrs []string
	var held []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		testkit.NoError(t, err)
		held = append(held, l)
		addrs = append(addrs, l.Addr().String())
	}
	for _, l := range held {
		_ = l.Close()
	}
	return addrs
}

// clusterHealth is a member's /v1/health cluster, once it answers.
func clusterHealth(t testing.TB, d *daemonProc) *daemonclient.ClusterHealth {
	t.Helper()
	res, err := http.Get(d.url + "/v1/health")
	testkit.NoError(t, err)
	defer res.Body.Close()
	var h daemonclient.Health
	testkit.NoError(t, json.NewDecoder(res.Body).Decode(&h))
	return h.Cluster
}

// Three `troupe daemon --cluster` processes on loopback, membership by the
// automanaged provider: a session created over ACP on the first member is
// placed by the cluster, attached and prompted over ACP on the second, and
// both clients see the run's updates; /v1/health and `troupe daemon
// status` name the members and what each hosts. Each member has its own
// store until the store is shared: the session's log is on its host alone.
func TestDaemonClusterServesAnySessionFromAnyMember(t *testing.T) {
	const answer = "answered across the cluster"
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text(answer)))
	peers := clusterPorts(t, 3)
	var members []*daemonProc
	var homes []string
	for _, p := range peers {
		home := t.TempDir()
		homes = append(homes, home)
		members = append(members, startDaemonBinary(t, home, env, append(model, "--approval-mode", "yolo",
			"--cluster", "troupe-test", "--cluster-membership", p, "--cluster-peers", strings.Join(peers, ","))...))
	}
	// Placement is by the topology: a session is created once every
	// member sees every other.
	for _, d := range members {
		testkit.Eventually(t, 30*time.Second, "a member sees three members", func() bool {
			c := clusterHealth(t, d)
			return c != nil && len(c.Members) == 3
		})
	}

	a := members[0].dialACP(t, "on-a")
	sid, _ := a.NewSession(t.TempDir())
	b := members[1].dialACP(t, "on-b")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})

	id := b.Prompt(sid, "hello")
	seen := func(c *acpclient.Client, until func(acpclient.Frame) bool) string {
		var text strings.Builder
		for _, f := range c.Until(until) {
			if strings.Contains(string(f.Raw), `"agent_message_chunk"`) {
				text.WriteString(string(f.Raw))
			}
		}
		return text.String()
	}
	if got := seen(b, func(f acpclient.Frame) bool { return f.Answers(id) }); !strings.Contains(got, answer) {
		t.Fatalf("member B's client saw no answer chunk %q: %s", answer, got)
	}
	if got := seen(a, func(f acpclient.Frame) bool { return strings.Contains(string(f.Raw), `"turn_complete"`) }); !strings.Contains(got, answer) {
		t.Fatalf("member A's client saw no answer chunk %q: %s", answer, got)
	}

	// One member hosts the session, and every member says which.
	var hosts []int
	for _, d := range members {
		c := clusterHealth(t, d)
		testkit.Equal(t, c.Name, "troupe-test")
		counts := map[string]int{}
		for _, m := range c.Members {
			counts[m.Address] = m.Sessions
		}
		total := 0
		for _, n := range counts {
			total += n
		}
		testkit.Equal(t, total, 1)
		hosts = append(hosts, len(counts))
	}
	testkit.Equal(t, slices.Equal(hosts, []int{3, 3, 3}), true)

	// The session's log is in its host's store alone (each member lists
	// its own store's sessions).
	listed := 0
	for _, d := range members {
		var list struct {
			Sessions []struct {
				SessionID string `json:"sessionId"`
			} `json:"sessions"`
		}
		res := d.do(t, http.MethodGet, "/v1/sessions?includeNonInteractive=1", nil)
		testkit.NoError(t, json.NewDecoder(res.Body).Decode(&list))
		res.Body.Close()
		if slices.ContainsFunc(list.Sessions, func(s struct {
			SessionID string `json:"sessionId"`
		}) bool {
			return s.SessionID == sid
		}) {
			listed++
		}
	}
	testkit.Equal(t, listed, 1)

	st := cli(t, nil, "", "daemon", "status", "--home", homes[1])
	testkit.Equal(t, st.code, 0)
	out := st.stdout
	for _, want := range []string{"cluster", "troupe-test", "member"} {
		if !strings.Contains(out, want) {
			t.Fatalf("daemon status says no %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "member ") < 3 {
		t.Fatalf("daemon status names fewer than three members:\n%s", out)
	}

	// A member stopped leaves the topology: the others see two.
	stop := cli(t, nil, "", "daemon", "stop", "--home", homes[2])
	testkit.Equal(t, stop.code, 0)
	for _, d := range members[:2] {
		testkit.Eventually(t, 30*time.Second, "a member sees two members", func() bool {
			c := clusterHealth(t, d)
			return c != nil && len(c.Members) == 2
		})
	}
}
