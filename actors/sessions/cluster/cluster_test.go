//go:build !race

// protoactor's cluster races with itself (the race detector finds, with
// two members in a test: grpc's global logger set at every remote's
// start, the gossip actor reading the member list the provider writes,
// remote.BlockList written from gossip while the topology reads it, and
// disthash's ring swapped unsynchronised under lookups), so the tests
// that start a member run without -race; the conversions' tests
// (convert_test.go) run with it, and cmd/troupe's test runs the binaries.

package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/cluster"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

const wait = 30 * time.Second

// freePorts are n loopback ports for the membership listeners, taken
// from the kernel and released for the members to bind: the automanaged
// provider's peers are a fixed list.
func freePorts(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	var held []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		testkit.NoError(t, err)
		held = append(held, l)
		out = append(out, l.Addr().String())
	}
	for _, l := range held {
		_ = l.Close()
	}
	return out
}

// startPair is a two-member cluster: a runtime in this process (one per
// process: protoactor's remote sets grpc's global logger at every start)
// and a `troupe daemon --cluster` binary. It returns once the
// in-process member sees both.
func startPair(t testing.TB) (*actors.Runtime, *cluster.Member, *sessions.Client) {
	t.Helper()
	script := llmserver.Script{Model: "tiny", Default: new(llmserver.Steps(llmserver.Text("from afar")))}
	peers := freePorts(t, 2)
	prov, err := llmserver.NewProvider(script, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(prov, event.ToolStyleNative)})
	m, err := cluster.Join(rt.System, rt, rt.Registry(), rt.Sessions, cluster.Options{Name: "c", Bind: "127.0.0.1:0", Membership: peers[0], Peers: peers})
	testkit.NoError(t, err)
	t.Cleanup(m.Stop)
	// Started after, so stopped before (cleanups run last first): the
	// in-process member's own leave is the last thing it does.
	srv := llmserver.New(t, script)
	testkit.Start(t, testkit.BuildTroupe(t), []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"daemon", "--home", t.TempDir(), "--listen", "127.0.0.1:0", "--provider", "openai", "--model", "tiny", "--approval-mode", "yolo",
		"--cluster", "c", "--cluster-membership", peers[1], "--cluster-peers", strings.Join(peers, ","))
	testkit.Eventually(t, wait, "the member sees both", func() bool {
		st, err := m.Status(context.Background())
		return err == nil && len(st.Members) == 2
	})
	return rt, m, rt.Sessions.Clustered(m.Router(), m)
}

func text(s string) []event.Block { return []event.Block{{Type: "text", Text: s}} }

// placeBoth creates n sessions through c, which the cluster places on
// its two members, and returns one this member hosts and one the other
// does. Placement hashes the id over the members: with 24, all on one side
// is one chance in 2^23.
func placeBoth(t testing.TB, rt *actors.Runtime, c *sessions.Client, n int) (onThis, onOther string) {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for i := range n {
		id := fmt.Sprintf("s-cluster-%02d", i)
		testkit.NoError(t, c.Create(ctx, id, event.CreatedPayload{Cwd: t.TempDir()}))
		ids = append(ids, id)
	}
	local, err := rt.Sessions.Live(ctx) // this member's own registry
	testkit.NoError(t, err)
	for _, id := range ids {
		if slices.Contains(local, id) {
			onThis = id
		} else {
			onOther = id
		}
	}
	if onThis == "" || onOther == "" {
		t.Fatalf("placement put all %d sessions on one member (here: %v)", n, local)
	}
	return onThis, onOther
}

// Sessions created through one member are placed on both by the
// cluster; each is served through the in-process member wherever it
// lives: its requests, errors and subscription cross as protobuf (the
// prompt's message id, its idempotency key, with it), unsubscribe and
// kill close the subscription, and delete removes it from its member's
// store.
func TestClusterServesSessionsWhereverTheyLive(t *testing.T) {
	rt, m, c := startPair(t)
	ctx := context.Background()
	onThis, onOther := placeBoth(t, rt, c, 24)
	// Both members answer with what they host (a member slow to answer
	// counts -1 that time).
	testkit.Eventually(t, wait, "the members host the 24 sessions between them", func() bool {
		st, err := m.Status(ctx)
		total := 0
		for _, mem := range st.Members {
			total += mem.Sessions
		}
		return err == nil && len(st.Members) == 2 && total == 24
	})

	_, err := c.State(ctx, "s-missing")
	testkit.Equal(t, errors.Is(err, sessions.ErrNotFound), true)
	_, err = c.Meta(ctx, "s-missing")
	testkit.Equal(t, errors.Is(err, sessions.ErrNotFound), true)

	for _, id := range []string{onThis, onOther} {
		testkit.Equal(t, errors.Is(c.Create(ctx, id, event.CreatedPayload{}), sessions.ErrExists), true)
		meta, err := c.Meta(ctx, id)
		testkit.NoError(t, err)
		testkit.Equal(t, meta.ID, id)

		sub := testkit.NewCollector(t, rt.System)
		subbed, err := c.Subscribe(ctx, id, 1, false, sub.PID())
		testkit.NoError(t, err)
		testkit.Equal(t, subbed.ReplayTo, int64(1))
		res, err := c.Prompt(ctx, id, sessions.PromptRequest{MessageID: "m-1", Content: text("hello")})
		testkit.NoError(t, err)
		testkit.Equal(t, res.MessageID, "m-1")
		end := testkit.WaitRunEnded(t, sub, "m-1", wait)
		testkit.Equal(t, end.StopReason, event.StopEndTurn)

		state, err := c.State(ctx, id)
		testkit.NoError(t, err)
		evs := sub.WaitSeq(t, state.LastSeq, wait)
		queued := 0
		for i, e := range evs {
			testkit.Equal(t, e.Seq, int64(i+1))
			testkit.Equal(t, e.SessionID, id)
			if e.Kind == event.PromptQueued {
				queued++
			}
		}
		testkit.Equal(t, queued, 1)

		c.Unsubscribe(id, subbed.Subscription)
		testkit.Eventually(t, wait, "the subscriber hears Closed", func() bool { return sub.Closed() != "" })

		watcher := testkit.NewCollector(t, rt.System)
		_, err = c.Subscribe(ctx, id, 0, true, watcher.PID())
		testkit.NoError(t, err)
		testkit.NoError(t, c.Kill(ctx, id))
		testkit.Eventually(t, wait, "a kill closes the subscription", func() bool { return watcher.Closed() != "" })

		// Deleted on its member's store, wherever that is.
		testkit.NoError(t, c.Delete(ctx, id))
		_, err = c.Meta(ctx, id)
		testkit.Equal(t, errors.Is(err, sessions.ErrNotFound), true)
		testkit.Equal(t, errors.Is(c.Delete(ctx, id), sessions.ErrNotFound), true)
	}
}

// The cost of the cluster's hop: from Prompt to the first update (its
// prompt.queued) at a subscriber of this member, and to the run's end,
// for a session in this process through the plain facade (one daemon),
// through the cluster to this member, and through the cluster to the
// other member's process. `go test -run '^$' -bench ClusterPrompt
// ./actors/sessions/cluster/`; BENCHMARKS.md has the figures.
func BenchmarkClusterPrompt(b *testing.B) {
	rt, _, c := startPair(b)
	here, there := placeBoth(b, rt, c, 24)
	ctx := context.Background()
	round := 0 // -count runs each case again: its message ids are new
	for _, cs := range []struct {
		name   string
		client *sessions.Client
		id     string
	}{{"single", rt.Sessions, here}, {"cluster-local", c, here}, {"cluster-remote", c, there}} {
		b.Run(cs.name, func(b *testing.B) {
			round++
			sub := testkit.NewCollector(b, rt.System)
			_, err := cs.client.Subscribe(ctx, cs.id, 0, true, sub.PID())
			testkit.NoError(b, err)
			var first, whole time.Duration
			for i := 0; b.Loop(); i++ {
				seen := len(sub.Events())
				msg := fmt.Sprintf("m-%s-%d-%d", cs.name, round, i)
				start := time.Now()
				_, err := cs.client.Prompt(ctx, cs.id, sessions.PromptRequest{MessageID: msg, Content: text("go")})
				testkit.NoError(b, err)
				sub.WaitFor(b, wait, func(evs []event.Event) bool { return len(evs) > seen })
				first += time.Since(start)
				testkit.WaitRunEnded(b, sub, msg, wait)
				whole += time.Since(start)
			}
			b.ReportMetric(float64(first.Microseconds())/float64(b.N), "µs/first-update")
			b.ReportMetric(float64(whole.Microseconds())/float64(b.N), "µs/run")
		})
	}
}
