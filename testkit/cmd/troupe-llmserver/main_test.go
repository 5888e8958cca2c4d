package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServesScriptFile(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.yaml")
	if err := os.WriteFile(script, []byte("replies:\n  - steps: [{text: hello}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	requests := filepath.Join(dir, "requests.jsonl")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"-requests", requests, script}, outW, &stderr)
		outW.Close()
		done <- err
	}()

	url, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("read url: %v (stderr: %s)", err, stderr.String())
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not a loopback URL", url)
	}
	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"content":"hello"`) {
		t.Errorf("body %s", body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	data, err := os.ReadFile(requests)
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Path    string `json:"path"`
		Outcome string `json:"outcome"`
		Body    struct {
			Messages []any `json:"messages"`
		} `json:"body"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), &line); err != nil {
		t.Fatalf("requests file %q: %v", data, err)
	}
	if line.Path != "/v1/chat/completions" || line.Outcome != "ok" || len(line.Body.Messages) != 1 {
		t.Errorf("request line %s", data)
	}
}

func TestRejectsBadScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(script, []byte("replies: [{steps: [{nope: 1}]}]"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{script}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `unknown field "nope"`) {
		t.Errorf("err %v", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	if err := run(context.Background(), nil, &stdout, &stderr); err == nil {
		t.Error("no script file accepted")
	}
}
