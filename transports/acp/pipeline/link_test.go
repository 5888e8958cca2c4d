package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// fakeTransformer stands in for a transformer's connection: it answers
// each response:session/update with continue, a chunk's text upper-cased,
// and keeps the texts it was given, in order. With held set, it keeps the
// calls unanswered until it is sent releaseCalls.
type fakeTransformer struct {
	held  bool
	calls atomic.Int32 // calls received
	mu    sync.Mutex
	texts []string
}

// releaseCalls answers the calls a held fakeTransformer kept, and every
// later one at once.
type releaseCalls struct{}

func (f *fakeTransformer) spawn(system *actor.ActorSystem) *actor.PID {
	held, pending := f.held, []*Call(nil)
	return system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *releaseCalls:
			held = false
			for _, call := range pending {
				f.answer(c, call)
			}
			pending = nil
		case *Call:
			f.calls.Add(1)
			if held {
				pending = append(pending, m)
				return
			}
			f.answer(c, m)
		}
	}))
}

func (f *fakeTransformer) answer(c actor.Context, m *Call) {
	msg, _ := m.Params.(transformerMsg)
	var env map[string]any
	_ = json.Unmarshal(msg.Envelope, &env)
	if u, _ := env["update"].(map[string]any); u != nil {
		if content, _ := u["content"].(map[string]any); content != nil {
			text, _ := content["text"].(string)
			f.mu.Lock()
			f.texts = append(f.texts, text)
			f.mu.Unlock()
			content["text"] = strings.ToUpper(text)
		}
	}
	payload, _ := json.Marshal(env)
	res, _ := json.Marshal(transformerAction{Action: "continue", Payload: payload})
	c.Send(m.Reply, &Answer{Step: m.Step, M: jsonrpc.Message{Result: res}})
}

func (f *fakeTransformer) seen() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.texts, "")
}

// linkDrafts makes the events these tests commit: any kind, and a text
// delta of run r's message m.
func linkDrafts(t *testing.T) (draft func(event.Kind, any) event.Draft, chunk func(string) event.Draft) {
	draft = func(kind event.Kind, p any) event.Draft {
		d, err := event.NewDraft(kind, p)
		testkit.NoError(t, err)
		return d
	}
	chunk = func(text string) event.Draft {
		return draft(event.MessageDelta, event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: event.ChannelText, Text: text})
	}
	return draft, chunk
}

// A link told to watch from a seq gets every agent update from there
// through the chain, those committed before it subscribed too, and each
// once: nothing slips past the gate between the session coming live and
// the link's subscription.
func TestLinkWatchesFromItsSeq(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "s", event.CreatedPayload{Cwd: t.TempDir()}))
	draft, chunk := linkDrafts(t)
	// Committed before the link exists, after the seq it is told to watch
	// from (2: the session came live with session.created alone).
	_, last, err := rt.Sessions.Append(ctx, "s",
		draft(event.PromptQueued, event.PromptQueuedPayload{MessageID: "r", Content: []event.Block{{Type: "text", Text: "go"}}, Delivery: event.DeliveryPrompt}),
		draft(event.RunStarted, event.RunStartedPayload{RunID: "r"}),
		draft(event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "m"}),
		chunk("hello "), chunk("world"))
	testkit.NoError(t, err)

	f := &fakeTransformer{held: true}
	p := New()
	p.Links = rt.Spawner(actors.SpawnerChainLinks)
	tr := f.spawn(rt.System)
	p.AddTransformer(rt.System.Root, "tr", tr, []string{"response:session/update"})
	p.RestoreChain("s", []string{"tr"})
	p.EnsureLink(rt.System, rt.Sessions, "s", 2)
	// Held from the seq on until decided: while the transformer has not
	// answered, no client may be shown the first chunk (last-1).
	testkit.Eventually(t, 10*time.Second, "the first chunk in the chain", func() bool { return f.calls.Load() > 0 })
	if r := p.Released("s"); r >= last-1 {
		t.Fatalf("released to %d before the transformer answered the chunk at %d", r, last-1)
	}
	rt.System.Root.Send(tr, &releaseCalls{})
	testkit.Eventually(t, 10*time.Second, "the committed chunks through the chain", func() bool {
		return f.seen() == "hello world" && p.Released("s") >= last
	})
	_, last, err = rt.Sessions.Append(ctx, "s", chunk("!"))
	testkit.NoError(t, err)
	testkit.Eventually(t, 10*time.Second, "the live chunk through the chain", func() bool {
		return p.Released("s") >= last
	})
	testkit.Equal(t, f.seen(), "hello world!")
}

// A session that comes live again while its link is still ending (here:
// told so before the kill that ends it) gets a new link when the old one
// has stopped, watching from the new incarnation's start.
func TestLinkHandsOverToTheNextIncarnation(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "s", event.CreatedPayload{Cwd: t.TempDir()}))
	draft, chunk := linkDrafts(t)
	f := &fakeTransformer{}
	p := New()
	p.Links = rt.Spawner(actors.SpawnerChainLinks)
	p.AddTransformer(rt.System.Root, "tr", f.spawn(rt.System), []string{"response:session/update"})
	p.RestoreChain("s", []string{"tr"})
	p.EnsureLink(rt.System, rt.Sessions, "s", 2)
	_, last, err := rt.Sessions.Append(ctx, "s",
		draft(event.RunStarted, event.RunStartedPayload{RunID: "r"}),
		draft(event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "m"}),
		chunk("one "))
	testkit.NoError(t, err)
	testkit.Eventually(t, 10*time.Second, "the first chunk through the chain", func() bool {
		return f.seen() == "one " && p.Released("s") >= last
	})

	p.Live(rt.System, rt.Sessions, "s", last) // the next incarnation, before the old link ended
	testkit.NoError(t, rt.Sessions.Kill(ctx, "s"))
	_, last, err = rt.Sessions.Append(ctx, "s", chunk("two"))
	testkit.NoError(t, err)
	testkit.Eventually(t, 10*time.Second, "the next incarnation's chunk through the new link's chain", func() bool {
		return f.seen() == "one two" && p.Released("s") >= last
	})
}
