package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// The session list in chromium: search across transcripts, rename,
// fork, export (a download), import (a file chosen), stop and delete,
// each seen both on the page and through REST; watching a session
// read-only shows its plan.
func TestWebPageListActions(t *testing.T) {
	// A session another front end wrote, an external agent's plan in it.
	home := t.TempDir()
	r := cli(t, nil, `{"kind":"plan.updated","payload":{"run_id":"r1","entries":[`+
		`{"content":"read the code","status":"completed"},{"content":"write the fix","status":"in_progress"}]}}`+"\n",
		"append", "s-planned", "--home", home, "--title", "a plan", "--cwd", t.TempDir())
	testkit.Equal(t, r.code, 0)
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("the needle is here")))
	d := startDaemon(t, home, env, model...)
	acp := d.dialACP(t, "editor")
	found, _ := acp.NewSession(t.TempDir())
	acp.WaitAnswer(acp.Prompt(found, "find the haystack"))
	other := d.create(t, t.TempDir())
	downloads := t.TempDir()

	a := browser(t)
	row := func(id string) chromedp.CSS { return chromedp.CSS(`#sessions li[data-id="` + id + `"]`) }
	action := func(id, label string) chromedp.Action[chromedp.Void] {
		return chromedp.Click(chromedp.CSS(`#sessions li[data-id="` + id + `"] .actions [aria-label^="` + label + ` "]`))
	}
	browse(t, a, "sign in with a token",
		chromedp.Navigate(d.url+"/"),
		chromedp.Click(chromedp.CSS("details.alt summary")),
		chromedp.SendKeys(chromedp.ID("token"), d.token),
		chromedp.Click(chromedp.ID("use-token")),
		chromedp.WaitVisible(row(found)), chromedp.WaitVisible(row(other)))

	// Search finds the session whose transcript has the word.
	browse(t, a, "search",
		chromedp.SendKeys(chromedp.ID("search"), "needle"+kb.Enter),
		chromedp.WaitNotPresent(row(other)), chromedp.WaitVisible(row(found)),
		waitText(`#sessions li .snippet`, "needle"))
	browse(t, a, "clear the search",
		script(`document.getElementById("search").value = ""`), chromedp.SendKeys(chromedp.ID("search"), kb.Enter),
		chromedp.WaitVisible(row(other)))

	// Rename.
	browse(t, a, "rename",
		action(other, "Rename"),
		chromedp.WaitVisible(chromedp.ID("retitle")),
		chromedp.SetValue(chromedp.ID("retitle"), "renamed on the web"),
		chromedp.Click(chromedp.ID("dialog-ok")),
		waitText(`#sessions li[data-id="`+other+`"] .title`, "renamed on the web"))
	var e sessionEntry
	d.call(t, "GET", "/v1/sessions/"+other, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Title, "renamed on the web")

	// Fork: the page opens the fork.
	browse(t, a, "fork", action(found, "Fork"), chromedp.WaitVisible(chromedp.ID("prompt")),
		waitText(`#transcript .msg.assistant`, "the needle is here"))
	fork := strings.TrimPrefix(evaluate[string](t, a, `location.hash`), "#/s/")
	var forked struct{ ForkedFromSessionID string }
	d.call(t, "GET", "/v1/sessions/"+fork, nil, http.StatusOK, &forked)
	testkit.Equal(t, forked.ForkedFromSessionID, found)

	// A refusal is shown: a session with forks is not deleted.
	browse(t, a, "back to the list", chromedp.Navigate(d.url+"/#/"), chromedp.WaitVisible(row(found)))
	browse(t, a, "delete refused",
		action(found, "Delete"),
		chromedp.Click(chromedp.ID("dialog-ok")),
		waitText("#toast .toast.error", "forked from it"),
		chromedp.WaitVisible(row(found)))

	// Export: the bundle is downloaded.
	browse(t, a, "allow downloads", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads})
		return err
	}), action(other, "Export"))
	// Chromium names the file before it has written it all: it is there
	// once it parses.
	var bundle string
	var parsed struct{ Session struct{ Title string } }
	testkit.Eventually(t, browserWait, "the exported bundle", func() bool {
		names, _ := filepath.Glob(filepath.Join(downloads, "*.hydra"))
		if len(names) != 1 {
			return false
		}
		b, err := os.ReadFile(names[0])
		bundle = names[0]
		return err == nil && json.Unmarshal(b, &parsed) == nil
	})
	testkit.Equal(t, parsed.Session.Title, "renamed on the web")

	// Kill: the live session goes cold; then it is deleted.
	browse(t, a, "kill", waitText(`#sessions li[data-id="`+other+`"] .badge`, "live"), action(other, "Stop"),
		waitText(`#sessions li[data-id="`+other+`"] .badge`, "cold"))
	d.call(t, "GET", "/v1/sessions/"+other, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Status, "cold")
	browse(t, a, "delete",
		action(other, "Delete"),
		chromedp.Click(chromedp.ID("dialog-ok")),
		chromedp.WaitNotPresent(row(other)))
	testkit.Equal(t, d.do(t, "GET", "/v1/sessions/"+other, nil).StatusCode, http.StatusNotFound)

	// Import the exported bundle: the page opens the session it made.
	browse(t, a, "import",
		chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{bundle}),
		chromedp.WaitVisible(chromedp.ID("prompt")),
		waitText(`#session-title`, "renamed on the web"))
	imported := strings.TrimPrefix(evaluate[string](t, a, `location.hash`), "#/s/")
	d.call(t, "GET", "/v1/sessions/"+imported, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Title, "renamed on the web")
	noProblems(t, a, "the imported session")

	// Watch: read-only, with the plan.
	browse(t, a, "watch", chromedp.Navigate(d.url+"/#/"), chromedp.WaitVisible(row("s-planned")),
		chromedp.Click(chromedp.CSS(`#sessions li[data-id="s-planned"] .actions [aria-label^="Watch "]`)),
		chromedp.WaitVisible(chromedp.ID("readonly-note")),
		waitText("#plan li.plan-completed", "read the code"),
		waitText("#plan li.plan-in_progress", "write the fix"))
	noProblems(t, a, "the watched session")
}
