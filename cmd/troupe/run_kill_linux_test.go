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

// toolGroup is the process group of the first tool call troupe run p
// reports in its --json events; the test's end kills what is left of it.
func toolGroup(t *testing.T, p *testkit.Proc) int {
	t.Helper()
	var pgid int
	decodeEvents(t, p, func(e event.Event) bool {
		var pr event.ToolProcessPayload
		if e.Kind == event.ToolProcess && e.Decode(&pr) == nil {
			pgid = pr.Pgid
		}
		return pgid > 0
	})
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	return pgid
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
	pgid := toolGroup(t, p)
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

// A tool call's group that outlived troupe (the call killed its group's
// watcher, so SIGKILL took only the leader, by its parent-death signal) is
// killed when the session is resumed: recovery proves the group is the
// call's by the marker every member inherited, and kills it.
func TestRunResumeKillsWhatACrashLeftOfAToolGroup(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	ready := filepath.Join(work, "ready")
	cmd := `pkill -KILL -P $$ -f 'read -r line'; sleep 300 & echo ok > ` + ready + `; wait`
	args, err := json.Marshal(map[string]string{"command": cmd})
	testkit.NoError(t, err)
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "bash", string(args))),
		llmserver.Steps(llmserver.Text("resumed")),
	}})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	p := testkit.Start(t, bin, env, "run", "--yolo", "--json", "--provider", "openai", "--model", "tiny", "--cwd", work, "--session", "kept", "outlive me")
	pgid := toolGroup(t, p)
	testkit.Eventually(t, 10*time.Second, "the tool killed its watcher and started its sleeper", func() bool {
		_, err := os.Stat(ready)
		return err == nil && len(groupMembers(pgid)) == 2 // bash and sleep
	})
	p.Kill()
	p.Wait(t, 10*time.Second)
	testkit.Eventually(t, 10*time.Second, "the leader gone with troupe", func() bool {
		return len(groupMembers(pgid)) == 1
	})
	time.Sleep(200 * time.Millisecond)
	if len(groupMembers(pgid)) != 1 {
		t.Fatal("the sleeper did not outlive troupe: nothing is left for recovery to kill")
	}

	lines, stderr, code := runLines(t, bin, env, "run", "--session", "kept")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	testkit.Eventually(t, 10*time.Second, "the group killed by recovery", func() bool {
		return len(groupMembers(pgid)) == 0
	})
}
