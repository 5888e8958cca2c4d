package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func toolArgs(t *testing.T, v map[string]string) string {
	b, err := json.Marshal(v)
	testkit.NoError(t, err)
	return string(b)
}

// editedSession runs a turn that writes f.txt, edits it twice and answers,
// in a session made through the daemon and prompted by `troupe run`.
func editedSession(t *testing.T) (d *daemonProc, id, work string) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.ToolCall("call-w", "write", toolArgs(t, map[string]string{"path": "f.txt", "content": "one\ntwo\n"}))),
		llmserver.Steps(llmserver.ToolCall("call-e1", "edit", toolArgs(t, map[string]string{"path": "f.txt", "old_string": "two", "new_string": "three"}))),
		llmserver.Steps(llmserver.ToolCall("call-e2", "edit", toolArgs(t, map[string]string{"path": filepath.Join(work, "f.txt"), "old_string": "three", "new_string": "four"}))),
		llmserver.Steps(llmserver.Text("done editing; no regression left")),
	)
	d = startDaemon(t, home, env, model...)
	id = d.create(t, work)
	d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil)
	if code, out := runPrompt(t, home, env, model, id, "please edit f.txt"); code != 0 {
		t.Fatalf("troupe run: exit %d\n%s", code, out)
	}
	return d, id, work
}

func TestDaemonDiffTranscriptSearchFork(t *testing.T) {
	d, id, work := editedSession(t)
	path := filepath.Join(work, "f.txt")

	type fileDiff struct {
		Path    string
		Created bool
		Hunks   []struct{ OldText, NewText string }
	}
	var diffs []fileDiff
	d.call(t, "GET", "/v1/sessions/"+id+"/diff", nil, http.StatusOK, &diffs)
	if len(diffs) != 1 || diffs[0].Path != path || !diffs[0].Created || len(diffs[0].Hunks) != 3 ||
		diffs[0].Hunks[0].NewText != "one\ntwo\n" || diffs[0].Hunks[1].OldText != "two" || diffs[0].Hunks[2].NewText != "four" {
		t.Fatalf("diff: %+v", diffs)
	}
	d.call(t, "GET", "/v1/sessions/"+id+"/diff?fold=true&paths=f.txt", nil, http.StatusOK, &diffs)
	if len(diffs) != 1 || len(diffs[0].Hunks) != 2 || diffs[0].Hunks[1].OldText != "two" || diffs[0].Hunks[1].NewText != "four" {
		t.Fatalf("folded diff: %+v", diffs)
	}
	d.call(t, "GET", "/v1/sessions/"+id+"/diff?paths=other.txt", nil, http.StatusOK, &diffs)
	testkit.Equal(t, len(diffs), 0)
	wantError(t, d.do(t, "GET", "/v1/sessions/nope/diff", nil), http.StatusNotFound)

	res := d.do(t, "GET", "/v1/sessions/"+id+"/transcript?tools=1", nil)
	testkit.Equal(t, res.Header.Get("Content-Type"), "text/markdown; charset=utf-8")
	md, _ := io.ReadAll(res.Body)
	for _, want := range []string{"## User\n\nplease edit f.txt", "### Tool `write` (success)", "### Tool `edit` (success)", "## Assistant\n\ndone editing"} {
		if !strings.Contains(string(md), want) {
			t.Fatalf("transcript lacks %q:\n%s", want, md)
		}
	}

	other := d.create(t, work)
	var found struct {
		Matches []struct{ SessionID, MessageID, Snippet string }
	}
	d.call(t, "POST", "/v1/sessions/search", map[string]any{"q": "REGRESSION"}, http.StatusOK, &found)
	if len(found.Matches) != 1 || found.Matches[0].SessionID != id || !strings.Contains(found.Matches[0].Snippet, "regression") || found.Matches[0].MessageID == "" {
		t.Fatalf("search: %+v", found)
	}
	d.call(t, "POST", "/v1/sessions/search", map[string]any{"q": "edit f.txt", "sessionIds": []string{id}}, http.StatusOK, &found)
	testkit.Equal(t, len(found.Matches), 1)
	d.call(t, "POST", "/v1/sessions/search", map[string]any{"q": "regression", "sessionIds": []string{other}}, http.StatusOK, &found)
	testkit.Equal(t, len(found.Matches), 0)
	wantError(t, d.do(t, "POST", "/v1/sessions/search", map[string]string{"q": " "}), http.StatusBadRequest)

	var fork struct{ SessionID, LineageID, ForkedFromSessionID, ForkedFromMessageID string }
	d.call(t, "POST", "/v1/sessions/"+id+"/fork", map[string]string{}, http.StatusCreated, &fork)
	if fork.SessionID == "" || fork.SessionID == id || fork.ForkedFromSessionID != id || fork.ForkedFromMessageID == "" || fork.LineageID == "" {
		t.Fatalf("fork: %+v", fork)
	}
	var entry struct{ ForkedFromSessionID, Cwd string }
	d.call(t, "GET", "/v1/sessions/"+fork.SessionID, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.ForkedFromSessionID, id)
	testkit.Equal(t, entry.Cwd, work)
	forkMD, _ := io.ReadAll(d.do(t, "GET", "/v1/sessions/"+fork.SessionID+"/transcript", nil).Body)
	if !strings.Contains(string(forkMD), "done editing") {
		t.Fatalf("the fork's transcript lacks its parent's conversation:\n%s", forkMD)
	}
	d.call(t, "POST", "/v1/sessions/"+id+"/fork", map[string]string{"forkAt": fork.ForkedFromMessageID}, http.StatusCreated, nil)
	wantError(t, d.do(t, "POST", "/v1/sessions/"+id+"/fork", map[string]string{"forkAt": "nope"}), http.StatusBadRequest)
	wantError(t, d.do(t, "POST", "/v1/sessions/"+id+"/fork", map[string]string{"cwd": ""}), http.StatusBadRequest)
	wantError(t, d.do(t, "POST", "/v1/sessions/nope/fork", nil), http.StatusNotFound)
}

// updates are a history's update objects, without what names the session
// or when it was recorded.
func updates(t *testing.T, d *daemonProc, id string) []string {
	var out []string
	for _, l := range ndjson(t, d.do(t, "GET", "/v1/sessions/"+id+"/history", nil)) {
		b, _ := json.Marshal(update(l))
		out = append(out, string(b))
	}
	return out
}

func TestDaemonExportImportRoundTrip(t *testing.T) {
	d, id, _ := editedSession(t)
	before := updates(t, d, id)
	if len(before) < 10 {
		t.Fatalf("history of the edited session: %v", before)
	}
	res := d.do(t, "GET", "/v1/sessions/"+id+"/export", nil)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, id+".hydra") {
		t.Fatalf("Content-Disposition %q", cd)
	}
	raw, _ := io.ReadAll(res.Body)
	var b struct {
		Version int
		Session struct{ SessionID, LineageID, AgentID, Cwd string }
		History []struct {
			Method     string
			RecordedAt int64
		}
		Troupe struct{ Events []json.RawMessage }
	}
	testkit.NoError(t, json.Unmarshal(raw, &b))
	if b.Version != 1 || b.Session.LineageID == "" || b.Session.SessionID != id || b.Session.AgentID != "troupe" ||
		len(b.History) != len(before) || b.History[0].Method != "session/update" || b.History[0].RecordedAt == 0 || len(b.Troupe.Events) == 0 {
		t.Fatalf("bundle: %s", raw)
	}
	body := `{"bundle":` + string(raw) + `}`

	// Same lineage here: refused, naming the session, unless replace.
	res = d.do(t, "POST", "/v1/sessions/import", body)
	wantError(t, res, http.StatusConflict)
	var clash struct{ ExistingSessionID string }
	b2, _ := json.Marshal(map[string]any{"bundle": json.RawMessage(raw)})
	res = d.do(t, "POST", "/v1/sessions/import", string(b2))
	testkit.NoError(t, json.NewDecoder(res.Body).Decode(&clash))
	testkit.Equal(t, clash.ExistingSessionID, id)
	var imp struct {
		SessionID, ImportedFromSessionID string
		Replaced                         bool
		Sanitized                        struct{ ApprovalMode string }
	}
	d.call(t, "POST", "/v1/sessions/import", `{"replace":true,"replaceSessionId":"`+id+`","bundle":`+string(raw)+`}`, http.StatusCreated, &imp)
	if imp.SessionID != id || !imp.Replaced || imp.ImportedFromSessionID != id {
		t.Fatalf("replace: %+v", imp)
	}
	// The session ran in yolo (troupe run's mode); an import is never
	// more permissive than the importing daemon's default mode.
	testkit.Equal(t, imp.Sanitized.ApprovalMode, "yolo")
	clamped := make([]string, len(before))
	for i, u := range before {
		// The mode shows as current_mode_update and in config_option_update's mode option.
		u = strings.ReplaceAll(u, `"currentModeId":"yolo"`, `"currentModeId":"default"`)
		clamped[i] = strings.ReplaceAll(u, `"currentValue":"yolo"`, `"currentValue":"default"`)
	}
	testkit.DeepEqual(t, updates(t, d, id), clamped)

	// Another daemon imports it as a new session with the same history
	// (on the same model: the model's window and the model option are
	// shown as the serving daemon knows them).
	d2 := startDaemon(t, t.TempDir(), []string{"OPENAI_BASE_URL=http://127.0.0.1:1/v1", "OPENAI_API_KEY="}, "--provider", "openai", "--model", "tiny")
	d2.call(t, "POST", "/v1/sessions/import", body, http.StatusCreated, &imp)
	if imp.SessionID == "" || imp.SessionID == id || imp.Replaced || imp.ImportedFromSessionID != id {
		t.Fatalf("import: %+v", imp)
	}
	testkit.DeepEqual(t, updates(t, d2, imp.SessionID), clamped)
	d2.call(t, "POST", "/v1/sessions/import", body, http.StatusConflict, nil)

	for _, bad := range []string{`{}`, `{"bundle":null}`, `{"bundle":{"version":9}}`, `{"bundle":[1]}`,
		`{"bundle":{"version":1,"session":{"lineageId":"x"}}}`,
		`{"bundle":{"version":1,"session":{"sessionId":"a","lineageId":"x"},"history":[{"params":{}}]}}`,
		`{"bundle":{"version":1,"session":{"sessionId":"a","lineageId":"x"},"troupe":{"created":{},"events":[{"kind":"no.such","payload":{}}]}}}`} {
		msg := wantError(t, d2.do(t, "POST", "/v1/sessions/import", bad), http.StatusBadRequest)
		if bad != `{}` && bad != `{"bundle":null}` && msg != "invalid bundle" {
			t.Fatalf("%s: error %q", bad, msg)
		}
	}
}

// A bundle another hydra daemon exported (no troupe log) is imported as
// its conversation, which the model then sees.
func TestDaemonImportsAHydraBundle(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "hydra-bundle.json"))
	testkit.NoError(t, err)
	d := startDaemon(t, t.TempDir(), nil)
	work := t.TempDir()
	var imp struct{ SessionID, ImportedFromSessionID string }
	d.call(t, "POST", "/v1/sessions/import", `{"cwd":"`+work+`","bundle":`+string(raw)+`}`, http.StatusCreated, &imp)
	testkit.Equal(t, imp.ImportedFromSessionID, "hydra_session_abc")
	md, _ := io.ReadAll(d.do(t, "GET", "/v1/sessions/"+imp.SessionID+"/transcript", nil).Body)
	for _, want := range []string{"## User\n\nwhy is the build red?", "## Assistant\n\nThe linter fails on main.go."} {
		if !strings.Contains(string(md), want) {
			t.Fatalf("transcript lacks %q:\n%s", want, md)
		}
	}
	var e struct{ Title, Cwd string }
	d.call(t, "GET", "/v1/sessions/"+imp.SessionID, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Title, "red build")
	testkit.Equal(t, e.Cwd, work)
	d.call(t, "POST", "/v1/sessions/import", `{"bundle":`+string(raw)+`}`, http.StatusConflict, nil)
}
