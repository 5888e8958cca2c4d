package session_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// arrivals is a subscriber actor that stamps each batch as it arrives and
// signals when run.ended comes. Unlike testkit.Collector it copies nothing
// per wait, so a million events cost it no more than their slices.
type arrivals struct {
	pid   *actor.PID
	ended chan struct{}

	mu      sync.Mutex
	batches []stampedBatch
	n       int
}

type stampedBatch struct {
	at  time.Time
	evs []event.Event
}

func newArrivals(b *testing.B, sys *actor.ActorSystem, keep bool) *arrivals {
	a := &arrivals{ended: make(chan struct{})}
	done := false
	a.pid = sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		m, ok := ctx.Message().(*session.Events)
		if !ok {
			return
		}
		at := time.Now()
		a.mu.Lock()
		a.n += len(m.Events)
		if keep {
			a.batches = append(a.batches, stampedBatch{at: at, evs: m.Events})
		}
		a.mu.Unlock()
		if !done && m.Events[len(m.Events)-1].Kind == event.RunEnded {
			done = true
			close(a.ended)
		}
	}))
	b.Cleanup(func() { sys.Root.Stop(a.pid) })
	return a
}

func (a *arrivals) wait(b *testing.B, timeout time.Duration) {
	select {
	case <-a.ended:
	case <-time.After(timeout):
		b.Fatalf("run.ended not seen within %s", timeout)
	}
}

// bootEngine starts a runtime whose runs use p, with one session subscribed
// (live only) by a fresh arrivals actor.
func bootEngine(b *testing.B, p llm.Provider, keep bool) (*actors.Runtime, *arrivals) {
	rt := testkit.Boot(b, actors.Options{Engine: testkit.Engine(p, event.ToolStyleNative)})
	ctx := context.Background()
	testkit.NoError(b, rt.Sessions.Create(ctx, "bench", event.CreatedPayload{Cwd: b.TempDir()}))
	a := newArrivals(b, rt.System, keep)
	_, err := rt.Sessions.Subscribe(ctx, "bench", 0, true, a.pid)
	testkit.NoError(b, err)
	return rt, a
}

// BenchmarkEngineDeltaThroughput: one session, one prompt, the in-process
// provider streaming a million one-token deltas; every delta becomes a
// message.delta event committed to SQLite. Measured from the Prompt request
// to the subscriber holding run.ended (which is only sent once committed).
func BenchmarkEngineDeltaThroughput(b *testing.B) {
	const deltas = 1_000_000
	var events, walMax int64
	var took time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p, err := llmserver.NewProvider(llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.Tokens(deltas, "x")),
		}})
		testkit.NoError(b, err)
		rt, a := bootEngine(b, p, false)
		ctx := context.Background()
		before, err := rt.Store.LastSeq(ctx, "bench")
		testkit.NoError(b, err)
		stopWAL := sampleWAL(rt.Store, &walMax)
		b.StartTimer()
		start := time.Now()
		_, err = rt.Sessions.Prompt(ctx, "bench", sessions.PromptRequest{Content: []event.Block{{Type: "text", Text: "go"}}})
		testkit.NoError(b, err)
		a.wait(b, 5*time.Minute)
		took += time.Since(start)
		b.StopTimer()
		stopWAL()
		after, err := rt.Store.LastSeq(ctx, "bench")
		testkit.NoError(b, err)
		if after-before < deltas {
			b.Fatalf("store holds %d new events, want at least %d deltas", after-before, deltas)
		}
		a.mu.Lock()
		seen := a.n
		a.mu.Unlock()
		if int64(seen) != after-before {
			b.Fatalf("subscriber saw %d events, store has %d new", seen, after-before)
		}
		events += after - before
		b.StartTimer()
	}
	b.ReportMetric(float64(events)/took.Seconds(), "events/s")
	b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "ms/run")
	b.ReportMetric(float64(walMax)/(1<<20), "MB-wal-max")
}

// sampleWAL records the largest WAL file seen every 10 ms until the
// returned stop is called: the checkpointer must keep it bounded under a
// constant stream of commits.
func sampleWAL(store *persistence.Store, peak *int64) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			*peak = max(*peak, store.WALSize())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// stampProvider streams n one-token text chunks, noting the time right
// before handing each to the sink, with a pause between chunks so that each
// travels alone.
type stampProvider struct {
	n      int
	pause  time.Duration
	stamps []time.Time
}

func (p *stampProvider) Stream(ctx context.Context, _ llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	p.stamps = make([]time.Time, p.n)
	for i := range p.n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.stamps[i] = time.Now()
		if err := sink(llm.Chunk{Kind: llm.ChunkText, Text: "x"}); err != nil {
			return nil, err
		}
		time.Sleep(p.pause)
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, FinishReason: llm.FinishStop}, nil
}

// BenchmarkEngineChunkLatency: the runtime's added latency from a provider
// chunk to the session's subscriber holding the committed message.delta
// (filter, event, session fold, group commit, fan-out).
func BenchmarkEngineChunkLatency(b *testing.B) {
	const chunks = 10_000
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p := &stampProvider{n: chunks, pause: 50 * time.Microsecond}
		rt, a := bootEngine(b, p, true)
		b.StartTimer()
		_, err := rt.Sessions.Prompt(context.Background(), "bench", sessions.PromptRequest{Content: []event.Block{{Type: "text", Text: "go"}}})
		testkit.NoError(b, err)
		a.wait(b, 2*time.Minute)
		b.StopTimer()
		a.mu.Lock()
		got := 0
		for _, bt := range a.batches {
			for _, e := range bt.evs {
				if e.Kind != event.MessageDelta {
					continue
				}
				var d event.MessageDeltaPayload
				testkit.NoError(b, e.Decode(&d))
				if d.Index >= chunks || d.Text != "x" {
					b.Fatalf("unexpected delta %+v", d)
				}
				lat = append(lat, bt.at.Sub(p.stamps[d.Index]))
				got++
			}
		}
		a.mu.Unlock()
		if got != chunks {
			b.Fatalf("subscriber saw %d deltas, want %d", got, chunks)
		}
		b.StartTimer()
	}
	slices.Sort(lat)
	q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(q(0.5), "µs-p50")
	b.ReportMetric(q(0.99), "µs-p99")
	b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds())/1e3, "µs-max")
}
