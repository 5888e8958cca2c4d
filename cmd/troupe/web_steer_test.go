package main

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Steering from the page, with the keyboard: while a turn waits for a
// permission, what is typed and sent with Steer replaces the running
// prompt; the request is withdrawn, the new prompt's answer streams in,
// and the page goes idle when that turn (which only the other clients
// are told the end of) ends.
func TestWebPageSteer(t *testing.T) {
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"echo first"}`)),
		llmserver.Steps(llmserver.Text("steered answer")))
	d := startDaemon(t, t.TempDir(), env, model...)
	id := d.create(t, t.TempDir())
	a := browser(t)
	browse(t, a, "sign in with the keyboard",
		chromedp.Navigate(d.url+"/"),
		chromedp.Click(chromedp.CSS("details.alt summary")),
		chromedp.SendKeys(chromedp.ID("token"), d.token),
		chromedp.SendKeys(chromedp.ID("token"), kb.Tab+kb.Enter), // to "Use token", pressed
		chromedp.WaitVisible(chromedp.ID("new-session")))
	browse(t, a, "prompt",
		chromedp.Navigate(d.url+"/#/s/"+id),
		chromedp.SendKeys(chromedp.ID("prompt"), "run the first thing"+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#asks .ask button[data-option="allow_once"]`)))
	browse(t, a, "steer",
		chromedp.SendKeys(chromedp.ID("prompt"), "do this instead"),
		chromedp.Click(chromedp.ID("steer")),
		waitText(`#transcript .msg.user`, "do this instead"),
		waitText(`#transcript .msg.assistant`, "steered answer"),
		chromedp.WaitNotPresent(chromedp.CSS(`#asks .ask`)),
		chromedp.WaitNotPresent(chromedp.ID("busy-badge")))
	noProblems(t, a, "steered session")
}
