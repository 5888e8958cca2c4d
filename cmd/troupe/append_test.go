package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// appendAll feeds input to `troupe append` in one write and returns its
// acks and exit code.
func appendAll(t *testing.T, bin, home, id, input string, args ...string) ([]ack, int) {
	t.Helper()
	p := testkit.Start(t, bin, nil, append([]string{"append", id, "--home", home}, args...)...)
	go func() {
		_, _ = p.Stdin.Write([]byte(input))
		_ = p.Stdin.Close()
	}()
	var acks []ack
	for line := range p.Lines() {
		var a ack
		testkit.NoError(t, json.Unmarshal([]byte(line), &a))
		acks = append(acks, a)
	}
	return acks, p.Wait(t, 60*time.Second)
}

// Every line is judged alone: the bad ones get their own error, in input
// order, and the good ones around them (in the same batch, since all the
// input is written at once) are still appended, with consecutive seqs.
func TestAppendJudgesEachLineAlone(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	lines := []string{
		deltaLine(1),
		`{not json`,
		deltaLine(3),
		`{"kind":"session.created","payload":{"cwd":"/elsewhere"}}`,
		`{"kind":"run.started","payload":{"run_id":5}}`,
		`{"kind":"no.such.kind","payload":{}}`,
		`{"kind":"message.delta","payload":"text"}`,
		strings.Repeat("x", 2048), // over --max-line
		deltaLine(9),
		``,
		deltaLine(11),
	}
	acks, code := appendAll(t, bin, home, "mixed", strings.Join(lines, "\n")+"\n", "--max-line", "1024")
	testkit.Equal(t, code, 1)
	testkit.Equal(t, len(acks), len(lines))
	wantErr := map[int]string{
		2:  "invalid JSON",
		4:  "session.created only opens a log",
		5:  "cannot unmarshal number",
		6:  `unknown event kind "no.such.kind"`,
		7:  "payload must be a JSON object",
		8:  "line too long (limit 1024 bytes)",
		10: "invalid JSON",
	}
	seq := int64(2) // 1 is the session.created append wrote
	for i, a := range acks {
		testkit.Equal(t, a.Line, i+1)
		if want, bad := wantErr[a.Line]; bad {
			if !strings.Contains(a.Error, want) || a.Seq != 0 {
				t.Fatalf("line %d: want error %q and no seq, got %+v", a.Line, want, a)
			}
			continue
		}
		if a.Error != "" || a.Seq != seq {
			t.Fatalf("line %d: want seq %d, got %+v", a.Line, seq, a)
		}
		seq++
	}
	evs := readStored(t, bin, home, "mixed")
	testkit.Equal(t, len(evs), 5)
	for i, n := range []int{1, 3, 9, 11} {
		var p event.MessageDeltaPayload
		testkit.NoError(t, evs[i+1].Decode(&p))
		testkit.Equal(t, p.Text, fmt.Sprintf("line-%d", n))
	}
}

// A line over the default 16 MiB limit ends nothing: it gets its error and
// the lines after it are read and acknowledged.
func TestAppendOverlongLineKeepsReading(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	huge := `{"kind":"message.delta","payload":{"text":"` + strings.Repeat("y", 17<<20) + `"}}`
	input := strings.Join([]string{deltaLine(1), huge, deltaLine(3), deltaLine(4)}, "\n") + "\n"
	acks, code := appendAll(t, bin, home, "huge", input)
	testkit.Equal(t, code, 1)
	testkit.DeepEqual(t, acks, []ack{
		{Line: 1, Seq: 2},
		{Line: 2, Error: "line 2: line too long (limit 16777216 bytes)"},
		{Line: 3, Seq: 3},
		{Line: 4, Seq: 4},
	})
	testkit.Equal(t, len(readStored(t, bin, home, "huge")), 4)
}
