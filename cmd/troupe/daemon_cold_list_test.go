package main

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/coldstore"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// coldEntry is what these tests read of a listed session.
type coldEntry struct {
	SessionID string    `json:"sessionId"`
	Title     string    `json:"title"`
	Cwd       string    `json:"cwd"`
	Status    string    `json:"status"`
	UpdatedAt time.Time `json:"updatedAt"`
}

type coldPage struct {
	Sessions   []coldEntry `json:"sessions"`
	NextCursor string      `json:"nextCursor"`
}

const (
	coldSessions = 3000
	coldCwds     = 5
	coldPiped    = 10 // every 10th session is troupe cat's
)

// seedCold gives a fresh home coldSessions cold sessions.
func seedCold(t *testing.T) string {
	home := t.TempDir()
	testkit.NoError(t, coldstore.Seed(context.Background(), filepath.Join(home, "troupe.db"), coldSessions,
		coldstore.Options{Cwds: coldCwds, Piped: coldPiped}))
	return home
}

// wantCold is the seeded sessions keep keeps, in the list's order: the
// newest (the highest index) first.
func wantCold(keep func(i int) bool) []string {
	var out []string
	for i := coldSessions - 1; i >= 0; i-- {
		if keep(i) {
			out = append(out, coldstore.ID(i))
		}
	}
	return out
}

func interactive(i int) bool { return i%coldPiped != 0 }

func ids(es []coldEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.SessionID
	}
	return out
}

// walk reads every page of GET /v1/sessions?query&limit=n.
func (d *daemonProc) walk(t *testing.T, query url.Values, n int) []coldEntry {
	t.Helper()
	var all []coldEntry
	query.Set("limit", itoa(n))
	for pages := 0; ; pages++ {
		var p coldPage
		d.call(t, http.MethodGet, "/v1/sessions?"+query.Encode(), nil, http.StatusOK, &p)
		if len(p.Sessions) > n {
			t.Fatalf("a page of %d holds %d", n, len(p.Sessions))
		}
		all = append(all, p.Sessions...)
		if p.NextCursor == "" {
			return all
		}
		if pages > coldSessions {
			t.Fatal("the pages never end")
		}
		query.Set("cursor", p.NextCursor)
	}
}

// A daemon whose home holds thousands of cold sessions lists them all,
// newest first, with their titles, directories and statuses; the filters
// Hydra's clients send (cwd, includeNonInteractive, status) and troupe's
// pages (limit, cursor) keep the same order; ACP session/list pages them
// with nextCursor; a search finds a word only one of them holds; and none
// of it starts a session: the daemon hosts no session after all of it.
func TestDaemonListsColdSessionsWithoutHostingThem(t *testing.T) {
	d := startDaemon(t, seedCold(t), nil)

	var full coldPage
	d.call(t, http.MethodGet, "/v1/sessions", nil, http.StatusOK, &full)
	testkit.DeepEqual(t, ids(full.Sessions), wantCold(interactive))
	testkit.Equal(t, full.NextCursor, "")
	e := full.Sessions[0]
	testkit.Equal(t, e.Title, coldstore.Title(coldSessions-1))
	testkit.Equal(t, e.Cwd, coldstore.Dir((coldSessions-1)%coldCwds))
	testkit.Equal(t, e.Status, "cold")
	for k := 1; k < len(full.Sessions); k++ {
		if full.Sessions[k].UpdatedAt.After(full.Sessions[k-1].UpdatedAt) {
			t.Fatalf("entry %d updated after entry %d", k, k-1)
		}
	}

	var piped coldPage
	d.call(t, http.MethodGet, "/v1/sessions?includeNonInteractive=1", nil, http.StatusOK, &piped)
	testkit.DeepEqual(t, ids(piped.Sessions), wantCold(func(int) bool { return true }))
	var dir coldPage
	d.call(t, http.MethodGet, "/v1/sessions?cwd="+url.QueryEscape(coldstore.Dir(2)), nil, http.StatusOK, &dir)
	inDir := func(i int) bool { return interactive(i) && i%coldCwds == 2 }
	testkit.DeepEqual(t, ids(dir.Sessions), wantCold(inDir))
	var cold, warm coldPage
	d.call(t, http.MethodGet, "/v1/sessions?status=cold", nil, http.StatusOK, &cold)
	testkit.DeepEqual(t, ids(cold.Sessions), wantCold(interactive))
	d.call(t, http.MethodGet, "/v1/sessions?status=warm&includeNonInteractive=true", nil, http.StatusOK, &warm)
	testkit.Equal(t, len(warm.Sessions), 0)

	testkit.DeepEqual(t, ids(d.walk(t, url.Values{}, 700)), wantCold(interactive))
	testkit.DeepEqual(t, ids(d.walk(t, url.Values{"includeNonInteractive": {"true"}, "cwd": {coldstore.Dir(2)}}, 97)),
		wantCold(func(i int) bool { return i%coldCwds == 2 }))
	testkit.DeepEqual(t, ids(d.walk(t, url.Values{"status": {"cold"}}, 1000)), wantCold(interactive))
	for _, bad := range []string{"limit=0", "limit=x", "limit=10001", "limit=5&cursor=not-ours"} {
		d.call(t, http.MethodGet, "/v1/sessions?"+bad, nil, http.StatusBadRequest, nil)
	}

	a := d.dialACP(t, "lister")
	var listed []string
	cursor := ""
	for pages := 0; ; pages++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res struct {
			Sessions []struct {
				SessionID string `json:"sessionId"`
			} `json:"sessions"`
			NextCursor string `json:"nextCursor"`
		}
		a.WaitAnswer(a.Call("session/list", params)).Decode(t, &res)
		for _, s := range res.Sessions {
			listed = append(listed, s.SessionID)
		}
		if cursor = res.NextCursor; cursor == "" || pages > coldSessions {
			break
		}
	}
	testkit.DeepEqual(t, listed, wantCold(func(int) bool { return true }))
	bad := a.WaitAnswer(a.Call("session/list", map[string]any{"cursor": "not-ours"}))
	if bad.Error == nil || bad.Error.Code != -32602 {
		t.Fatalf("session/list with a foreign cursor answered %s", bad.Raw)
	}

	var found struct {
		Matches []struct {
			SessionID string `json:"sessionId"`
		} `json:"matches"`
	}
	d.call(t, http.MethodPost, "/v1/sessions/search", map[string]any{"q": coldstore.Word(1234)}, http.StatusOK, &found)
	testkit.Equal(t, len(found.Matches), 1)
	testkit.Equal(t, found.Matches[0].SessionID, coldstore.ID(1234))

	s := d.scrape(t)
	testkit.Equal(t, s.value("troupe_sessions", "state", "live"), 0.0)
	testkit.Equal(t, s.value("troupe_sessions", "state", "busy"), 0.0)
	testkit.Equal(t, s.value("troupe_sessions", "state", "cold"), float64(coldSessions))
}

// A cold session prompted again moves to the head of the list, warm, and
// stays there, cold, with the time of its last event, once it is killed:
// the transaction that records it cold writes on its row what the list
// reads of it.
func TestDaemonListKeepsAColdSessionsNewHead(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("a new answer")))
	d := startDaemon(t, seedCold(t), env, model...)
	a := d.dialACP(t, "editor")
	sid := coldstore.ID(7)
	_, _ = a.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	pid := a.Prompt(sid, "once more")
	a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })

	var warm coldPage
	d.call(t, http.MethodGet, "/v1/sessions?limit=1", nil, http.StatusOK, &warm)
	testkit.Equal(t, warm.Sessions[0].SessionID, sid)
	testkit.Equal(t, warm.Sessions[0].Status, "warm")

	a.WaitAnswer(a.Call("session/detach", map[string]any{"sessionId": sid}))
	d.call(t, http.MethodPost, "/v1/sessions/"+sid+"/kill", nil, http.StatusAccepted, nil)
	testkit.Eventually(t, 10*time.Second, "the session cold", func() bool {
		var p coldPage
		d.call(t, http.MethodGet, "/v1/sessions?limit=1", nil, http.StatusOK, &p)
		return p.Sessions[0].Status == "cold"
	})
	var cold coldPage
	d.call(t, http.MethodGet, "/v1/sessions?limit=2", nil, http.StatusOK, &cold)
	testkit.DeepEqual(t, ids(cold.Sessions), []string{sid, coldstore.ID(coldSessions - 1)})
	testkit.Equal(t, cold.Sessions[0].UpdatedAt, warm.Sessions[0].UpdatedAt)
}
