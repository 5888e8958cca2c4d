package main

import (
	"bytes"
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

// No daemon on the home: one line saying so, exit 1.
func TestCatWithoutADaemon(t *testing.T) {
	cmd := exec.Command(testkit.BuildTroupe(t), "cat", "--home", t.TempDir())
	cmd.Stdin = strings.NewReader("x")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "no daemon runs on") {
		t.Fatalf("exit %v, stderr %q", err, stderr.String())
	}
}
