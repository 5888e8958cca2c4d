//go:build linux

package main

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// smallDisk mounts a tmpfs of size bytes on a fresh directory: a real
// filesystem that fills up. It needs root (CI and this sandbox run as
// root); elsewhere the test is skipped, saying why.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)+",mode=0700")
	if err != nil {
		t.Skipf("a full disk is made by mounting a small tmpfs, which needs CAP_SYS_ADMIN: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill writes a file in dir until the filesystem refuses with ENOSPC and
// returns its path; removing it frees the space.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	testkit.NoError(t, err)
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	// Whatever is left is less than a chunk: take it a byte-page at a time.
	small := make([]byte, 512)
	for {
		if _, err := f.Write(small); err != nil {
			break
		}
	}
	return path
}

// storeFullAnswer bounds how long a request on a full disk may take to be
// refused: the "at once" is within a second (measured: a few
// milliseconds), so one second is both the requirement and a generous
// bound on a loaded machine.
const storeFullAnswer = time.Second

// A full disk is answered at once, in each protocol's shape, naming the
// cause: an ACP session/prompt and session/new get a JSON-RPC error with
// their ids and data.errorKind disk_full, the attached client hears the
// session closed with the reason, REST session creation gets 507. Reads go
// on meanwhile, and once there is room again the session is prompted as
// before, with nothing it acknowledged lost.
func TestDaemonStoreFull(t *testing.T) {
	home := smallDisk(t, 64<<20)
	// A prompt folded before its commit failed may start a run (what a
	// session does after a failed commit is its recovery's business): the
	// model answers every request after the first "after".
	after := llmserver.Steps(llmserver.Text("after"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("before"))}, Default: &after})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	d := startDaemon(t, home, env, "--provider", "openai", "--model", "tiny")
	work := t.TempDir()
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(work)
	f := a.WaitAnswer(a.Prompt(sid, "first"))
	testkit.Equal(t, string(f.Result), `{"stopReason":"end_turn"}`)

	// An idle store truncates its WAL (after a second): then the next
	// commit needs new blocks, which the full disk refuses. A WAL with
	// room in it would take a few more commits first.
	testkit.Eventually(t, 20*time.Second, "the WAL truncated", func() bool {
		fi, err := os.Stat(filepath.Join(home, "troupe.db-wal"))
		return err == nil && fi.Size() == 0
	})
	filler := fill(t, home)

	start := time.Now()
	id := a.Prompt(sid, "second")
	var answer, closed *acpclient.Frame
	for answer == nil || closed == nil {
		f := a.Read(acpWait)
		switch {
		case f.Answers(id):
			answer = &f
			if took := time.Since(start); took > storeFullAnswer {
				t.Fatalf("the prompt was refused after %s", took)
			}
		case f.Method == "hydra-acp/session/closed":
			closed = &f
		}
	}
	wantDiskFull(t, *answer)
	if !strings.Contains(closed.Raw, "disk is full") {
		t.Fatalf("the session closed with %s, want the reason", closed.Raw)
	}

	start = time.Now()
	f = a.WaitAnswerWithin(a.Call("session/new", map[string]any{"cwd": work, "mcpServers": []any{}}), storeFullAnswer)
	wantDiskFull(t, f)
	t.Logf("session/new refused in %s", time.Since(start))

	start = time.Now()
	msg := wantError(t, d.do(t, "POST", "/v1/sessions", map[string]string{"cwd": work}), http.StatusInsufficientStorage)
	if took := time.Since(start); took > storeFullAnswer || !strings.Contains(msg, "disk is full") {
		t.Fatalf("REST create answered %q after %s", msg, took)
	}

	// Reads are served meanwhile.
	var list struct {
		Sessions []struct{ SessionID string }
	}
	d.call(t, "GET", "/v1/sessions", nil, http.StatusOK, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid {
		t.Fatalf("sessions on a full disk: %+v", list.Sessions)
	}
	if h := history(t, d, sid); !strings.Contains(h, "before") {
		t.Fatalf("history on a full disk lacks the first answer: %s", h)
	}

	// Room again: the session takes prompts, and kept what it acknowledged.
	testkit.NoError(t, os.Remove(filler))
	testkit.Eventually(t, acpWait, "a prompt answered once there is room", func() bool {
		f := a.WaitAnswer(a.Prompt(sid, "third"))
		return f.Error == nil && string(f.Result) == `{"stopReason":"end_turn"}`
	})
	h := history(t, d, sid)
	for _, want := range []string{"first", "before", "third", "after"} {
		if !strings.Contains(h, want) {
			t.Fatalf("history lacks %q: %s", want, h)
		}
	}
	d.create(t, work)
}

// wantDiskFull checks an ACP answer is the error a full disk gets.
func wantDiskFull(t *testing.T, f acpclient.Frame) {
	t.Helper()
	if f.Error == nil || f.Error.Code != -32603 || !strings.Contains(f.Error.Message, "disk is full") ||
		!strings.Contains(string(f.Error.Data), `"errorKind":"disk_full"`) {
		t.Fatalf("answer %s, want the disk named full", f.Raw)
	}
}

// history is session id's REST history, as text.
func history(t *testing.T, d *daemonProc, id string) string {
	t.Helper()
	res := d.do(t, "GET", "/v1/sessions/"+id+"/history", nil)
	b, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	return string(b)
}
