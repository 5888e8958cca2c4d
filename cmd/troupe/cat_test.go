package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Without --stream, stdin is the prompt, after the instructions, in a
// piped session; the agent's answer is cat's stdout.
func TestCatPipesStdinAsThePrompt(t *testing.T) {
	home := t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("three lines"))}})
	startDaemon(t, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}, "--provider", "openai", "--model", "tiny", "--cwd", t.TempDir())
	code, out, _ := pipeCat(t, home, []byte("alpha\nbeta\ngamma\n"), "count", "the", "lines")
	if code != 0 || strings.TrimSpace(out) != "three lines" {
		t.Fatalf("cat: exit %d, stdout %q", code, out)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d chat requests, want 1", len(reqs))
	}
	body := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(string(reqs[0].Body))
	if !strings.Contains(body, `count the lines\n\n<stdin>\nalpha\nbeta\ngamma\n\n</stdin>`) {
		t.Fatalf("the prompt the model got: %+v", reqs)
	}
	if strings.Contains(string(reqs[0].Body), "hydra-acp-stdin") {
		t.Fatal("a cat without --stream was given the stdin server")
	}
}

// No daemon on the home: one line saying so, as `troupe session` says it
// (not a file error, nor the foreground command), exit 1.
func TestCatWithoutADaemon(t *testing.T) {
	cmd := exec.Command(testkit.BuildTroupe(t), "cat", "--home", t.TempDir())
	cmd.Stdin = strings.NewReader("x")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "no troupe daemon is running for") || strings.Contains(stderr.String(), "daemon.addr") {
		t.Fatalf("exit %v, stderr %q", err, stderr.String())
	}
}

// A wrong token is named as `troupe session` names it, not as a WebSocket
// handshake; stdin too long for one prompt creates nothing (issue 25, 12).
func TestCatRefusalsCreateNothing(t *testing.T) {
	home := t.TempDir()
	d := startDaemon(t, home, nil)
	bin := testkit.BuildTroupe(t)
	run := func(env []string, stdin string) (int, string) {
		cmd := exec.Command(bin, "cat", "--home", home)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, stderr.String()
	}
	code, msg := run([]string{"TROUPE_TOKEN=wrong"}, "x")
	if code != 1 || !strings.Contains(msg, "refused the token") || strings.Contains(msg, "bad handshake") {
		t.Fatalf("a wrong token: exit %d, stderr %q", code, msg)
	}
	code, msg = run(nil, strings.Repeat("x", 8<<20+1))
	if code != 2 || !strings.Contains(msg, "use --stream") {
		t.Fatalf("stdin over 8 MiB: exit %d, stderr %q", code, msg)
	}
	if n := len(d.listed(t, "?includeNonInteractive=1")); n != 0 {
		t.Fatalf("refused cats left %d sessions behind", n)
	}
}
