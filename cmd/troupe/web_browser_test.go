package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/daemon"
)

// The web page end to end in a real headless chromium against a real
// daemon and the scripted model: sign in with the master password,
// create a session, prompt it and watch the answer stream in, approve
// the edit it asks for and see its result and diff; a second tab (signed
// in with a pasted token) follows the same session live and loses the
// permission prompt when the first answers; a reload shows the history;
// a read-only view has no prompt box. Screenshots of the list and of the
// session mid-turn, at 1280×800 and 390×844, go to TROUPE_WEB_ARTIFACTS.
func TestWebPageSessionInBrowser(t *testing.T) {
	home, cwd, shots := t.TempDir(), t.TempDir(), artifacts(t)
	testkit.NoError(t, os.WriteFile(filepath.Join(cwd, "greeting.txt"), []byte("hello\nsecond line\n"), 0o644))
	testkit.NoError(t, daemon.SetPassword(home, "correct horse"))
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Thinking("The greeting should name the world."), llmserver.Text("I'll update **greeting.txt** for you."),
			llmserver.ToolCall("c1", "edit", `{"path":"greeting.txt","old_string":"hello\n","new_string":"hello, world\n"}`)),
		llmserver.Steps(llmserver.Text("Done. The file now reads:\n\n```go\nfmt.Println(\"hello, world\")\n```\n")))
	d := startDaemon(t, home, env, model...)
	b := browser(t)
	a := b

	// Sign in with the password; create a session in cwd.
	browse(t, a, "sign in",
		chromedp.Navigate(d.url+"/"),
		chromedp.WaitVisible(chromedp.ID("password")),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse"),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID("new-session")))
	browse(t, a, "create a session",
		chromedp.Click(chromedp.ID("new-session")),
		chromedp.WaitVisible(chromedp.ID("new-cwd")),
		chromedp.SetValue(chromedp.ID("new-cwd"), cwd),
		chromedp.Click(chromedp.ID("dialog-ok")),
		chromedp.WaitVisible(chromedp.ID("prompt")))
	hash := evaluate[string](t, a, `location.hash`)
	id := strings.TrimPrefix(hash, "#/s/")
	if id == hash || id == "" {
		t.Fatalf("after creating a session the page is at %q, not #/s/<id>", hash)
	}

	// Prompt: the text streams in before the turn ends, and the edit
	// waits for a permission.
	browse(t, a, "prompt",
		chromedp.SendKeys(chromedp.ID("prompt"), "please greet the world\n"),
		waitText(`#transcript .msg.assistant`, "I'll update greeting.txt for you."),
		chromedp.WaitVisible(chromedp.CSS(`#asks .ask button[data-option="allow_once"]`)),
		chromedp.WaitVisible(chromedp.ID("busy-badge")))
	bold := evaluate[int](t, a, `document.querySelectorAll("#transcript .msg.assistant strong").length`)
	testkit.Equal(t, bold, 1)
	// Thinking is there, folded.
	browse(t, a, "thinking", waitText(`#transcript details.thought:not([open])`, "The greeting should name the world."))

	// A second tab, signed in with a pasted token, sees the history so
	// far and the same permission request.
	second := tab(t, b)
	browse(t, second, "sign in with a token",
		chromedp.Navigate(d.url+"/"),
		chromedp.WaitVisible(chromedp.ID("password")),
		chromedp.Click(chromedp.CSS("details.alt summary")),
		chromedp.SendKeys(chromedp.ID("token"), d.token),
		chromedp.Click(chromedp.ID("use-token")),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.WaitVisible(chromedp.CSS(`#sessions li[data-id="`+id+`"]`)))
	// The list's refresh keeps each row's time (it read an attribute the
	// row never set, and emptied it).
	time.Sleep(6 * time.Second) // past a refresh of the list (every 5 s)
	if ago := evaluate[string](t, second, `document.querySelector("#sessions li time").textContent`); !strings.HasSuffix(ago, " ago") {
		t.Fatalf("the row's updated time reads %q", ago)
	}
	screenshot(t, second, shots, "list-1280x800", 1280, 800)
	screenshot(t, second, shots, "list-390x844", 390, 844)
	browse(t, second, "open the session",
		chromedp.Navigate(d.url+"/#/s/"+id),
		waitText(`#transcript .msg.user`, "please greet the world"),
		waitText(`#transcript .msg.assistant`, "I'll update greeting.txt for you."),
		chromedp.WaitVisible(chromedp.CSS(`#asks .ask button[data-option="allow_once"]`)))
	// A prompt sent while the turn runs waits in the queue, shown to both
	// tabs; cancelling it takes it out of both.
	browse(t, a, "queue a prompt",
		chromedp.SendKeys(chromedp.ID("prompt"), "and then say goodbye\n"),
		waitText(`#queue li.chip`, "and then say goodbye"))
	browse(t, second, "the queued prompt shows", waitText(`#queue li.chip`, "and then say goodbye"))
	screenshot(t, a, shots, "session-midturn-1280x800", 1280, 800)
	screenshot(t, second, shots, "session-midturn-390x844", 390, 844)
	// The same in the dark scheme, from the top (title, badges, gauge).
	browse(t, second, "dark scheme", darkScheme(), script(`window.scrollTo(0, 0)`))
	screenshot(t, second, shots, "session-midturn-dark-390x844", 390, 844)

	browse(t, a, "cancel the queued prompt",
		chromedp.Click(chromedp.CSS(`#queue li.chip:not(.running) button.cancel`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#queue li.chip:not(.running)`)))
	browse(t, second, "the cancelled prompt goes", chromedp.WaitNotPresent(chromedp.CSS(`#queue li.chip:not(.running)`)))

	// The first tab approves: the second loses the prompt and both see the
	// tool's result, its diff and the rest of the answer, highlighted.
	browse(t, a, "approve",
		chromedp.Click(chromedp.CSS(`#asks .ask button[data-option="allow_once"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#asks .ask`)))
	checkTurn(t, a, "first tab")
	noProblems(t, a, "first tab")
	browse(t, second, "the permission prompt is withdrawn", chromedp.WaitNotPresent(chromedp.CSS(`#asks .ask`)),
		waitText(`#transcript .note`, "answered the permission request"))
	checkTurn(t, second, "second tab")
	noProblems(t, second, "second tab")
	data, err := os.ReadFile(filepath.Join(cwd, "greeting.txt"))
	testkit.NoError(t, err)
	testkit.Equal(t, string(data), "hello, world\nsecond line\n")

	// A reload replays the history from the daemon.
	browse(t, a, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("prompt")),
		waitText(`#transcript .msg.user`, "please greet the world"))
	checkTurn(t, a, "reloaded tab")

	// Read-only: the history, and no way to prompt.
	browse(t, second, "read-only view",
		chromedp.Navigate(d.url+"/#/s/"+id+"/ro"),
		chromedp.WaitVisible(chromedp.ID("readonly-note")),
		waitText(`#transcript .msg.assistant`, "Done. The file now reads:"))
	composers := evaluate[int](t, second, `document.querySelectorAll("#prompt, #composer, #send").length`)
	testkit.Equal(t, composers, 0)
	noProblems(t, second, "read-only view")
	noProblems(t, a, "reloaded tab")
}

// checkTurn waits until the tab shows the finished turn: the edit done
// with its line diff, the answer's code highlighted, the session idle.
func checkTurn(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	browse(t, ctx, name+": the finished turn",
		waitText(`#transcript details.tool[data-id="c1"] .status`, "done"),
		waitText(`#transcript details.tool[data-id="c1"] .diff .dl.add .tx`, "hello, world"),
		waitText(`#transcript details.tool[data-id="c1"] .diff .dl.del .tx`, "hello"),
		waitText(`#transcript .msg.assistant pre code.hljs`, `fmt.Println("hello, world")`),
		chromedp.WaitNotPresent(chromedp.ID("busy-badge")))
}
