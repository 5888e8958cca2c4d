package acp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// fakeExtension stands in for an extension's connection: it answers
// greet at once, leaves slow unanswered, and hands every cancel to notes.
func fakeExtension(system *actor.ActorSystem, notes chan<- map[string]any) *actor.PID {
	return system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *peerCall:
			if p, _ := m.params.(map[string]any); p["verb"] == "greet" {
				c.Send(m.reply, &peerAnswer{m: jsonrpc.Message{Result: json.RawMessage(`{"text":"hello"}`)}})
			}
		case *peerNotify:
			p, _ := m.params.(map[string]any)
			notes <- p
		}
	}))
}

// Every way a slash command leaves the queue or finishes forgets it: run
// to its answer, cut by its context, cancelled or edited into a prompt
// while queued, its run ended before it asked, its session deleted.
func TestPendingCommandsAreForgotten(t *testing.T) {
	system := actor.NewActorSystem()
	defer system.Shutdown()
	notes := make(chan map[string]any, 4)
	p := NewPipeline()
	p.commands["ext"] = &commandProcess{conn: fakeExtension(system, notes), verbs: map[string]bool{"greet": true, "slow": true}}

	p.queuedCommand("s", "m1", "/hydra ext greet x")
	text, err := p.RunCommand(context.Background(), system, "s", "/hydra ext greet x")
	testkit.NoError(t, err)
	testkit.Equal(t, text, "hello")
	testkit.Equal(t, p.pendingCount(), 0)

	p.queuedCommand("s", "m2", "/hydra ext slow")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.RunCommand(ctx, system, "s", "/hydra ext slow")
		done <- err
	}()
	testkit.Eventually(t, 10*time.Second, "slow invoked", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.pending) == 1 && p.pending[0].conn != nil
	})
	p.SessionClosing("s")
	cancel()
	testkit.Equal(t, <-done, context.Canceled)
	note := <-notes
	testkit.Equal(t, note["messageId"], any("m2"))
	testkit.Equal(t, note["reason"], any("abandoned"))
	testkit.Equal(t, p.pendingCount(), 0)

	p.queuedCommand("s", "m3", "/hydra ext greet a")
	p.queueLeft("s", "m3")
	p.queuedCommand("s", "m4", "/hydra ext greet a")
	p.queueEdited("s", "m4", []contentBlock{{Type: "text", Text: "not a command"}}, true)
	p.queuedCommand("s", "m5", "/hydra ext greet a")
	p.queueLeft("s", "m5") // its run ended before it asked
	p.queuedCommand("s", "m6", "/hydra ext greet a")
	p.queuedCommand("t", "m7", "/hydra ext greet a")
	p.SessionGone("s")
	testkit.Equal(t, p.pendingCount(), 1)
	p.SessionGone("t")
	testkit.Equal(t, p.pendingCount(), 0)

	// An amend of a queued command edits it in place: its run takes it
	// with the new text and its message id.
	p.queuedCommand("s", "m8", "/hydra ext greet a")
	p.markCommand("s", "m8", "amended")
	p.queueEdited("s", "m8", []contentBlock{{Type: "text", Text: "/hydra ext greet b"}}, false)
	pc := p.takeCommand("s", "/hydra ext greet b")
	testkit.Equal(t, pc.messageID, "m8")
	testkit.Equal(t, pc.reason, "")
	p.forgetCommand(pc)
	testkit.Equal(t, p.pendingCount(), 0)

	// A prompt edited into a command is one from its event, not from an
	// answer that may come after its run took and forgot it.
	p.queueEdited("s", "m9", []contentBlock{{Type: "text", Text: "/hydra ext greet c"}}, false)
	testkit.Equal(t, p.pendingCount(), 0)
	p.queueEdited("s", "m9", []contentBlock{{Type: "text", Text: "/hydra ext greet c"}}, true)
	testkit.Equal(t, p.takeCommand("s", "/hydra ext greet c").messageID, "m9")
	p.queueLeft("s", "m9")
	testkit.Equal(t, p.pendingCount(), 0)
}

// pendingCount is how many commands are queued or in flight .
func (p *Pipeline) pendingCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}
