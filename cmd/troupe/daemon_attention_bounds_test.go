package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // to weigh the attention events in the store
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// attentionBytes is the stored size of a session's attention.changed
// events, read from the store while the daemon runs.
func attentionBytes(t *testing.T, home, sid string) (n, rows int64) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "troupe.db")+"?"+url.Values{"mode": {"ro"}, "_busy_timeout": {"5000"}}.Encode())
	testkit.NoError(t, err)
	defer db.Close()
	testkit.NoError(t, db.QueryRow("SELECT coalesce(sum(length(payload)), 0), count(*) FROM events WHERE session_id = ? AND kind = 'attention.changed'", sid).Scan(&n, &rows))
	return n, rows
}

// blob is a 4 KiB payload, distinct for each i.
func blob(i, size int) map[string]any {
	s := fmt.Sprintf("%08d", i)
	return map[string]any{"blob": strings.Repeat(s, size/len(s))}
}

// 200 sets of 4 KiB flags (50 flags raised, then each updated three
// times) store about 200 x 4 KiB: an event carries the flag that changed,
// not the whole set (which made 12 MiB of flags write 156 MiB). The bounds
// (64 flags, 64 KiB a flag, 256 KiB a session) refuse with invalid params,
// the set untouched; and a read-only attachment may neither set nor clear.
func TestDaemonAttentionStorageLinearAndBounded(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t)
	d := startDaemon(t, home, env, model...)
	tui := d.dialACP(t, "tui")
	sid, _ := tui.NewSession(work)
	planner := d.dialACP(t, "planner")
	set := func(reason string, payload any) acpclient.Frame {
		return planner.WaitAnswer(planner.Call("hydra-acp/attention/set", map[string]any{"sessionId": sid, "reason": reason, "payload": payload}))
	}

	const flags, sets, size = 50, 200, 4 << 10
	for i := range sets {
		if f := set(fmt.Sprintf("r%d", i%flags), blob(i, size)); f.Error != nil {
			t.Fatalf("set %d: %s", i, f.Raw)
		}
	}
	n, rows := attentionBytes(t, home, sid)
	testkit.Equal(t, rows, int64(sets))
	// Each event: the payload and a little framing. The whole set each time
	// would have been about 30 MiB.
	if limit := int64(sets * (size + 512)); n > limit {
		t.Fatalf("%d sets of %d bytes stored %d bytes of attention events, more than %d", sets, size, n, limit)
	}
	var got attentionFlags
	d.call(t, "GET", "/v1/sessions/"+sid+"/attention", nil, http.StatusOK, &got)
	testkit.Equal(t, len(got.Flags), flags)

	refused := func(f acpclient.Frame, id int, code int, says string) {
		t.Helper()
		if !f.Answers(id) || f.Error == nil || f.Error.Code != code || !strings.Contains(f.Error.Message, says) {
			t.Fatalf("answered %s, want error %d naming %q", f.Raw, code, says)
		}
	}
	// One flag past 64 KiB.
	id := planner.Call("hydra-acp/attention/set", map[string]any{"sessionId": sid, "reason": "big", "payload": blob(0, 65<<10)})
	refused(planner.WaitAnswer(id), id, -32602, "bytes")
	// The 65th flag.
	for i := flags; i < 64; i++ {
		if f := set(fmt.Sprintf("r%d", i), map[string]any{"n": i}); f.Error != nil {
			t.Fatalf("flag %d: %s", i, f.Raw)
		}
	}
	id = planner.Call("hydra-acp/attention/set", map[string]any{"sessionId": sid, "reason": "one-too-many"})
	refused(planner.WaitAnswer(id), id, -32602, "at most 64 flags")
	// A session's flags past 256 KiB: 50 x 4 KiB held, one grows to 60 KiB.
	id = planner.Call("hydra-acp/attention/set", map[string]any{"sessionId": sid, "reason": "r0", "payload": blob(1, 60<<10)})
	refused(planner.WaitAnswer(id), id, -32602, "at most 262144 bytes")
	d.call(t, "GET", "/v1/sessions/"+sid+"/attention", nil, http.StatusOK, &got)
	testkit.Equal(t, len(got.Flags), 64)
	if _, rows2 := attentionBytes(t, home, sid); rows2 != rows+int64(64-flags) {
		t.Fatalf("refused sets were recorded: %d events, want %d", rows2, rows+int64(64-flags))
	}
	// Clearing makes room again.
	if f := planner.WaitAnswer(planner.Call("hydra-acp/attention/clear", map[string]any{"sessionId": sid, "reason": "r63"})); f.Error != nil {
		t.Fatalf("clear: %s", f.Raw)
	}
	if f := set("one-more", nil); f.Error != nil {
		t.Fatalf("set after a clear: %s", f.Raw)
	}

	// Read-only: the method is refused (with room for its flag), the
	// flags stay.
	if f := planner.WaitAnswer(planner.Call("hydra-acp/attention/clear", map[string]any{"sessionId": sid, "reason": "one-more"})); f.Error != nil {
		t.Fatalf("clear: %s", f.Raw)
	}
	watcher := d.dialACP(t, "watcher")
	watcher.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none", "_meta": map[string]any{"hydra-acp": map[string]any{"readonly": true}}})
	for _, m := range []string{"hydra-acp/attention/set", "hydra-acp/attention/clear"} {
		id := watcher.Call(m, map[string]any{"sessionId": sid, "reason": "r1"})
		refused(watcher.WaitAnswer(id), id, -32011, "read-only")
	}
	d.call(t, "GET", "/v1/sessions/"+sid+"/attention", nil, http.StatusOK, &got)
	testkit.Equal(t, len(got.Flags), 63)
	for _, f := range got.Flags {
		if f.Source == "watcher" {
			t.Fatalf("the read-only watcher raised a flag: %+v", f)
		}
	}
}
