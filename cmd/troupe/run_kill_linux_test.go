//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// groupMembers lists the live (not zombie) processes of process group pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:])) // state, ppid, pgrp, …
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// SIGKILL of `troupe run` takes the running tool's whole process group with
// it, grandchildren included, without waiting for the session's resume.
func TestRunKilledTakesItsToolProcessGroup(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	ready := filepath.Join(work, "ready")
	cmd := `sleep 300 & sh -c 'sleep 301 & wait' & sh -c 'sh -c "sleep 302"' & echo ok > ` + ready + `; sleep 303`
	args, err := json.Marshal(map[string]string{"command": cmd})
	testkit.NoError(t, err)
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "bash", string(args))),
	}})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	p := testkit.Start(t, bin, env, "run", "--yolo", "--json", "--provider", "openai", "--model", "tiny", "--cwd", work, "sleep a while")
	var pgid int
	decodeEvents(t, p, func(e event.Event) bool {
		var pr event.ToolProcessPayload
		if e.Kind == event.ToolProcess && e.Decode(&pr) == nil {
			pgid = pr.Pgid
		}
		return pgid > 0
	})
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	testkit.Eventually(t, 10*time.Second, "the tool started its sleepers", func() bool {
		_, err := os.Stat(ready)
		return err == nil && len(groupMembers(pgid)) >= 5
	})
	p.Kill()
	p.Wait(t, 10*time.Second)
	testkit.Eventually(t, 10*time.Second, "the tool's process group died with troupe", func() bool {
		return len(groupMembers(pgid)) == 0
	})
}
