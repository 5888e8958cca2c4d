package rest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/testkit"
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

			// /events, /export and the others read the projector itself.
			proj := newProjector(acpupdatetest.Session, acpupdatetest.Models{}, nil)
			var us []update
			for _, e := range c.Log.Events {
				us = proj.project(e)
			}
			got = got[:0]
			for _, u := range us {
				b, err := json.Marshal(u.body)
				if err != nil {
					t.Fatal(err)
				}
				// /events files and filters rows by the kind and message the
				// projector names.
				var named struct {
					SessionUpdate string `json:"sessionUpdate"`
					MessageID     string `json:"messageId"`
				}
				testkit.NoError(t, json.Unmarshal(b, &named))
				if named.SessionUpdate != u.kind || named.MessageID != u.messageID {
					t.Errorf("update %s named %q, message %q", b, u.kind, u.messageID)
				}
				got = append(got, string(b))
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
