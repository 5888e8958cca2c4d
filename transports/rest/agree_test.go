package rest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/transports/acpupdate/acpupdatetest"
)

// REST's history shows every event kind as the table says a client
// attached from the start is shown it; ACP's replay runs the same table
// (transports/acp), so the two agree.
func TestHistoryShowsEveryKindAsTheTable(t *testing.T) {
	for _, c := range acpupdatetest.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			var out bytes.Buffer
			h := &historyWriter{id: acpupdatetest.Session, proj: newProjector(acpupdatetest.Session, acpupdatetest.Models{}, nil), bw: bufio.NewWriter(&out)}
			for _, e := range c.Log.Events {
				if err := h.write(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.bw.Flush(); err != nil {
				t.Fatal(err)
			}
			last := c.Log.Events[len(c.Log.Events)-1].Seq
			var got []string
			sc := bufio.NewScanner(&out)
			for sc.Scan() {
				var l struct {
					Seq    int64 `json:"seq"`
					Params struct {
						Update json.RawMessage `json:"update"`
					} `json:"params"`
				}
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("history line %s: %v", sc.Bytes(), err)
				}
				if l.Seq == last {
					got = append(got, string(l.Params.Update))
				}
			}
			assertUpdates(t, got, c.Want)
		})
	}
}

func assertUpdates(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d updates, want %d\n got: %q\nwant: %q", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("update %d\n got: %s\nwant: %s", i, got[i], want[i])
		}
	}
}
