package pipeline

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// fakeExtension stands in for an extension's connection: it answers
// greet at once, leaves slow unanswered, and hands every cancel to notes.
func fakeExtension(system *actor.ActorSystem, notes chan<- map[string]any) *actor.PID {
	return system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *Call:
			if p, _ := m.Params.(map[string]any); p["verb"] == "greet" {
				c.Send(m.Reply, &Answer{M: jsonrpc.Message{Result: json.RawMessage(`{"text":"hello"}`)}})
			}
		case *Notify:
			p, _ := m.Params.(map[string]any)
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
	p := New()
	p.commands.byName["ext"] = &commandProcess{conn: fakeExtension(system, notes), verbs: map[string]Command{"greet": {Verb: "greet"}, "slow": {Verb: "slow"}}}

	p.QueuedCommand("s", "m1", "/hydra ext greet x")
	text, err := p.RunCommand(context.Background(), system, "s", "/hydra ext greet x")
	testkit.NoError(t, err)
	testkit.Equal(t, text, "hello")
	testkit.Equal(t, p.pendingCount(), 0)

	p.QueuedCommand("s", "m2", "/hydra ext slow")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.RunCommand(ctx, system, "s", "/hydra ext slow")
		done <- err
	}()
	testkit.Eventually(t, 10*time.Second, "slow invoked", func() bool {
		p.commands.mu.Lock()
		defer p.commands.mu.Unlock()
		return len(p.commands.pending) == 1 && p.commands.pending[0].conn != nil
	})
	p.SessionClosing("s")
	cancel()
	testkit.Equal(t, <-done, context.Canceled)
	note := <-notes
	testkit.Equal(t, note["messageId"], any("m2"))
	testkit.Equal(t, note["reason"], any("abandoned"))
	testkit.Equal(t, p.pendingCount(), 0)

	p.QueuedCommand("s", "m3", "/hydra ext greet a")
	p.QueueLeft("s", "m3")
	p.QueuedCommand("s", "m4", "/hydra ext greet a")
	p.QueueEdited("s", "m4", []acpupdate.ContentBlock{{Type: "text", Text: "not a command"}}, true)
	p.QueuedCommand("s", "m5", "/hydra ext greet a")
	p.QueueLeft("s", "m5") // its run ended before it asked
	p.QueuedCommand("s", "m6", "/hydra ext greet a")
	p.QueuedCommand("t", "m7", "/hydra ext greet a")
	p.SessionGone("s")
	testkit.Equal(t, p.pendingCount(), 1)
	p.SessionGone("t")
	testkit.Equal(t, p.pendingCount(), 0)

	// An amend of a queued command edits it in place: its run takes it
	// with the new text and its message id.
	p.QueuedCommand("s", "m8", "/hydra ext greet a")
	p.MarkCommand("s", "m8", "amended")
	p.QueueEdited("s", "m8", []acpupdate.ContentBlock{{Type: "text", Text: "/hydra ext greet b"}}, false)
	pc := p.takeCommand("s", "/hydra ext greet b")
	testkit.Equal(t, pc.messageID, "m8")
	testkit.Equal(t, pc.reason, "")
	p.forgetCommand(pc)
	testkit.Equal(t, p.pendingCount(), 0)

	// A prompt edited into a command is one from its event, not from an
	// answer that may come after its run took and forgot it.
	p.QueueEdited("s", "m9", []acpupdate.ContentBlock{{Type: "text", Text: "/hydra ext greet c"}}, false)
	testkit.Equal(t, p.pendingCount(), 0)
	p.QueueEdited("s", "m9", []acpupdate.ContentBlock{{Type: "text", Text: "/hydra ext greet c"}}, true)
	testkit.Equal(t, p.takeCommand("s", "/hydra ext greet c").messageID, "m9")
	p.QueueLeft("s", "m9")
	testkit.Equal(t, p.pendingCount(), 0)
}

// pendingCount is how many commands are queued or in flight .
func (p *Pipeline) pendingCount() int {
	p.commands.mu.Lock()
	defer p.commands.mu.Unlock()
	return len(p.commands.pending)
}
