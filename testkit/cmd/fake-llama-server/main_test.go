package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs the built fake with llama-server's usual flags plus extra.
func start(t *testing.T, extra ...string) (*testkit.Proc, string) {
	t.Helper()
	model := filepath.Join(t.TempDir(), "m.gguf")
	if err := os.WriteFile(model, []byte("GGUF"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(freePort(t))
	args := append([]string{"-m", model, "--host", "127.0.0.1", "--port", port, "-c", "1024", "-np", "1",
		"-t", "2", "-a", "tiny", "--jinja"}, extra...)
	return testkit.Start(t, testkit.BuildFakeLlamaServer(t), nil, args...), "http://127.0.0.1:" + port
}

func get(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func waitStatus(t *testing.T, url string, want int) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, url+" answering "+strconv.Itoa(want), func() bool {
		code, _ := get(url)
		return code == want
	})
}

func TestLoadsThenServesThenStopsCleanlyOnSIGTERM(t *testing.T) {
	p, url := start(t, "--fake-load", "700ms")
	waitStatus(t, url+"/health", 503)
	if code, body := get(url + "/v1/models"); code != 503 || !strings.Contains(body, "Loading model") {
		t.Fatalf("models while loading: %d %s", code, body)
	}
	waitStatus(t, url+"/health", 200)
	if code, body := get(url + "/props"); code != 200 || !strings.Contains(body, `"chat_template_caps"`) {
		t.Fatalf("props: %d %s", code, body)
	}
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(t, 5*time.Second); code != 0 {
		t.Fatalf("exit after SIGTERM: %d\n%s", code, p.Stderr())
	}
	for _, line := range []string{"llama_server: model loaded", "llama_server: listening on " + url, "cleaning up before exit"} {
		if !strings.Contains(p.Stderr(), line) {
			t.Errorf("stderr lacks %q:\n%s", line, p.Stderr())
		}
	}
}

// waitStatus reports how the process ended: its exit code, or -1 and the
// signal that killed it.
func ended(t *testing.T, p *testkit.Proc) (int, syscall.Signal) {
	t.Helper()
	p.Wait(t, 10*time.Second)
	ws := p.Cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return -1, ws.Signal()
	}
	return ws.ExitStatus(), 0
}

func TestSIGTERMWhileLoadingKillsBySignal(t *testing.T) {
	p, url := start(t, "--fake-load", "1m")
	waitStatus(t, url+"/health", 503)
	p.Signal(syscall.SIGTERM)
	if code, sig := ended(t, p); sig != syscall.SIGTERM {
		t.Fatalf("ended with %d / %v, want killed by SIGTERM", code, sig)
	}
}

func TestMisbehavesWhenToldTo(t *testing.T) {
	chat := func(url string) error {
		c := http.Client{Timeout: 500 * time.Millisecond}
		resp, err := c.Post(url+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"stream":true}`))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		return err
	}
	t.Run("crash", func(t *testing.T) {
		p, url := start(t, "--fake-crash-after", "1")
		waitStatus(t, url+"/health", 200)
		if err := chat(url); err != nil {
			t.Fatalf("first completion: %v", err)
		}
		if err := chat(url); err == nil {
			t.Fatal("second completion answered")
		}
		if _, sig := ended(t, p); sig != syscall.SIGKILL {
			t.Fatalf("crash ended by %v", sig)
		}
	})
	t.Run("hang", func(t *testing.T) {
		p, url := start(t, "--fake-hang-after", "0")
		waitStatus(t, url+"/health", 200)
		if err := chat(url); err == nil {
			t.Fatal("a hung server answered a completion")
		}
		c := http.Client{Timeout: 300 * time.Millisecond}
		if _, err := c.Get(url + "/health"); err == nil {
			t.Fatal("a hung server answered /health")
		}
		if p.Cmd.ProcessState != nil {
			t.Fatal("a hung server exited")
		}
	})
	t.Run("ignore-term", func(t *testing.T) {
		p, url := start(t, "--fake-ignore-term")
		waitStatus(t, url+"/health", 200)
		p.Signal(syscall.SIGTERM)
		time.Sleep(200 * time.Millisecond)
		if code, _ := get(url + "/health"); code != 200 {
			t.Fatalf("after an ignored SIGTERM /health is %d", code)
		}
		p.Kill()
		if _, sig := ended(t, p); sig != syscall.SIGKILL {
			t.Fatalf("ended by %v", sig)
		}
	})
	t.Run("abort-on-term", func(t *testing.T) {
		p, url := start(t, "--fake-abort-on-term")
		waitStatus(t, url+"/health", 200)
		p.Signal(syscall.SIGTERM)
		if _, sig := ended(t, p); sig != syscall.SIGABRT {
			t.Fatalf("ended by %v, want SIGABRT", sig)
		}
	})
	t.Run("fail-load", func(t *testing.T) {
		p, _ := start(t, "--fake-fail-load")
		if code, _ := ended(t, p); code != 1 || !strings.Contains(p.Stderr(), "exiting due to model loading error") {
			t.Fatalf("exit %d, stderr %s", code, p.Stderr())
		}
	})
}

func TestRefusesUnknownFlagsAndMissingModel(t *testing.T) {
	bin := testkit.BuildFakeLlamaServer(t)
	out, err := exec.Command(bin, "--no-such-flag").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "no-such-flag") {
		t.Fatalf("unknown flag: %v %s", err, out)
	}
	port := strconv.Itoa(freePort(t))
	out, err = exec.Command(bin, "-m", "/nonexistent.gguf", "--port", port).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "model loading error") {
		t.Fatalf("missing model: %v %s", err, out)
	}
}

// Past the script (here none) it echoes the last user message, a word a
// streamed frame.
func TestEchoesTheLastUserMessage(t *testing.T) {
	_, url := start(t)
	waitStatus(t, url+"/health", 200)
	body := `{"messages":[{"role":"user","content":"first"},{"role":"user","content":[{"type":"text","text":"hello big world"}]}],"stream":true}`
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var words []string
	for _, line := range strings.Split(string(b), "\n") {
		if _, after, ok := strings.Cut(line, `"content":"`); ok {
			if w, _, ok := strings.Cut(after, `"`); ok && w != "" {
				words = append(words, w)
			}
		}
	}
	if strings.Join(words, "|") != "hello| big| world" {
		t.Fatalf("streamed words %q from:\n%s", words, b)
	}
}
