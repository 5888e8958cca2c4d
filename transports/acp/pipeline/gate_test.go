package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// The response chain's outcome on an update envelope, as the gate reads it.
func TestDecisionOf(t *testing.T) {
	env := json.RawMessage(`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`)
	upper := json.RawMessage(`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"HI"}}}`)
	spaced := json.RawMessage(`{"update": {"sessionUpdate":"agent_message_chunk", "content":{"type":"text","text":"hi"}}, "sessionId":"s"}`)
	cases := []struct {
		name    string
		done    Done
		changed bool
		dropped bool
		update  string
	}{
		{"continue unchanged", Done{Action: "continue", Envelope: env}, false, false, ""},
		{"continue, the same update written differently", Done{Action: "continue", Envelope: spaced}, false, false, ""},
		{"continue rewritten", Done{Action: "continue", Envelope: upper}, true, false,
			`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"HI"}}`},
		{"continue with no update object", Done{Action: "continue", Envelope: json.RawMessage(`{"sessionId":"s","update":5}`)}, false, false, ""},
		{"stop", Done{Action: "stop", Envelope: json.RawMessage(`{"x":1}`)}, true, true, ""},
		{"discharged with an envelope", Done{Action: "stop", Discharged: true, Envelope: upper}, true, false,
			`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"HI"}}`},
		{"discharged with null", Done{Action: "stop", Discharged: true, Envelope: json.RawMessage(`null`)}, true, true, ""},
		{"chain error", Done{Err: jsonrpc.NewError(jsonrpc.CodeInternal, "gone")}, false, false, ""},
	}
	for _, c := range cases {
		d, changed := decisionOf(c.done, env)
		if changed != c.changed || d.Dropped != c.dropped || string(d.Update) != c.update {
			t.Errorf("%s: got changed %v dropped %v update %s", c.name, changed, d.Dropped, d.Update)
		}
	}
}

// The gate forgets decisions only once every watching connection has
// projected past them; one that has not said how far it is keeps them all.
func TestGatePrunesWhatEveryWatcherIsPast(t *testing.T) {
	p := New()
	p.gates.m.Store("s", &gate{released: -1, decisions: map[int64]decision{}, projected: map[string]int64{}})
	p.gates.n.Add(1)
	a, b := actor.NewPID("local", "a"), actor.NewPID("local", "b")
	p.Watch("s", a)
	p.Watch("s", b)
	p.Projected("s", a.String(), 5000)
	for s := int64(1); s <= pruneEvery; s++ {
		p.gateDecide("s", 0, s, decision{Dropped: true})
	}
	if _, ok := p.Decision("s", 1); !ok {
		t.Fatal("pruned while a watcher had not said how far it is")
	}
	p.Projected("s", b.String(), 600)
	for s := int64(2000); s < 2000+pruneEvery; s++ {
		p.gateDecide("s", 0, s, decision{Dropped: true})
	}
	if _, ok := p.Decision("s", 600); ok {
		t.Fatal("seq 600 kept: every watcher is past it")
	}
	if _, ok := p.Decision("s", 601); !ok {
		t.Fatal("seq 601 pruned: b has not projected it")
	}
	// A reader that is no watcher (REST's history) is sent to the log for
	// what may be forgotten, and told the rest.
	p.gateMove("s", 5000)
	if _, _, known := p.Decided("s", 600); known {
		t.Fatal("seq 600's decision is forgotten, yet known")
	}
	if d, decided, known := p.Decided("s", 601); !known || !decided || !d.Dropped {
		t.Fatalf("seq 601: %+v decided %v known %v", d, decided, known)
	}
	if _, decided, known := p.Decided("s", 1500); !known || decided {
		t.Fatalf("seq 1500 (undecided): decided %v known %v", decided, known)
	}
	if _, _, known := p.Decided("s", 5001); known {
		t.Fatal("seq 5001 is not released, yet known")
	}
	// b leaves and attaches again: it starts over, so nothing more goes.
	p.Unwatch("s", b)
	p.Watch("s", b)
	for s := int64(4000); s < 4000+pruneEvery; s++ {
		p.gateDecide("s", 0, s, decision{Dropped: true})
	}
	if _, ok := p.Decision("s", 601); !ok {
		t.Fatal("seq 601 pruned after b attached again")
	}
}
