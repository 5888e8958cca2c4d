package acp

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/acpupdate/acpupdatetest"
	"github.com/troupehq/troupe/transports/projection"
)

// An ACP replay shows every event kind as the table says a client attached
// from the start is shown it, ids and all, but for what an attaching
// client learns otherwise (Case.Replayed: the state updates); REST's
// history runs the same table
// (transports/rest), so the two agree. Both replays are run: collected
// (drip) and streamed, whose chunks are joined as they come.
func TestReplayShowsEveryKindAsTheTable(t *testing.T) {
	for _, drip := range []bool{true, false} {
		for _, tc := range acpupdatetest.Cases(t) {
			name := tc.Name
			if !drip {
				name += " streamed"
			}
			t.Run(name, func(t *testing.T) {
				c := &conn{cfg: Config{Pipeline: pipeline.New(), Models: acpupdatetest.Models{}}, outgoing: map[int64]outgoing{}}
				id := acpupdatetest.Session
				a := &attachment{id: id, replayTo: -1, view: &projection.View{SessionID: id, Deltas: true},
					prompts: map[string]json.RawMessage{}, decided: map[string]bool{}, asked: map[string]int64{}, shown: map[string]bool{},
					turnEnds: map[string]int64{}, raised: map[string]int64{},
					replay: newReplay(id, attachOptions{policy: policyFull, drip: drip})}
				for _, e := range tc.Log.Events {
					a.project(c, nil, e)
				}
				settle(a.replay.updates)
				last := tc.Log.Events[len(tc.Log.Events)-1].Seq
				var got []string
				for _, u := range a.replay.updates {
					if u.pos.Seq != last {
						continue
					}
					b, err := json.Marshal(u.params.Update)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(b))
				}
				want := tc.Replayed()
				if len(got) != len(want) {
					t.Fatalf("%d updates, want %d\n got: %q\nwant: %q", len(got), len(want), got, want)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Errorf("update %d\n got: %s\nwant: %s", i, got[i], want[i])
					}
				}
			})
		}
	}
}
