package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/troupehq/troupe/testkit"
)

// browserWait bounds each wait for the page: generous for a loaded CI
// machine, never a measure of speed.
const browserWait = 20 * time.Second

// chromium is the headless browser the web page's tests drive: Debian's
// chromium, which CI installs from .ci/packages. Without it the test
// fails saying how to install it, in CI and out: a browser test that
// skipped would pass without testing the page.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: the web page's browser tests need it; install it with " +
		"`apt-get install -y --no-install-recommends chromium` (.ci/run installs it from .ci/packages)")
	return ""
}

// browser starts a headless chromium for the test (closed at its end) and
// returns the context of its first tab, 1280×800.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts, chromedp.ExecPath(chromium(t)), chromedp.WindowSize(1280, 800),
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-gpu", true))
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root (CI's containers); the
		// page it loads is the test's own, from loopback.
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first action starts the browser, which lives as long as that
	// action's context: the test's, with no deadline of its own.
	if err := chromedp.Do(ctx, watchProblems()); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// tab opens another tab of the same browser (its own sessionStorage, so
// its own sign-in).
func tab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), watchProblems()); err != nil { // opens it, for the tab's life
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// browse runs actions in ctx within browserWait, failing the test with what
// it was doing.
func browse(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("browser: %s: %v\nthe page reads:\n%s", what, err, pageText(ctx))
	}
}

// pageText is what the tab shows, as text, for a failure's message.
func pageText(ctx context.Context) string {
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	text, err := chromedp.Run(c, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return text
}

// evaluate runs a JavaScript expression in the tab and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("browser: evaluate %s: %v", expr, err)
	}
	return v
}

// waitText waits until an element matching the CSS selector sel contains
// text.
func waitText(sel, text string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`[...document.querySelectorAll(%q)].some((e) => e.textContent.includes(%q))`, sel, text)
	return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(50*time.Millisecond))
}

// artifacts is where screenshots go: $TROUPE_WEB_ARTIFACTS (kept after
// the test, for CI to upload), else the test's temporary directory.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TROUPE_WEB_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	testkit.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// screenshot saves the tab's viewport at width×height as name.png in dir.
func screenshot(t *testing.T, ctx context.Context, dir, name string, width, height int64) {
	t.Helper()
	browse(t, ctx, "viewport for "+name, chromedp.EmulateViewport(width, height, chromedp.EmulateScale(1)))
	c, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("browser: screenshot %s: %v", name, err)
	}
	browse(t, ctx, "viewport back", chromedp.ResetViewport())
	testkit.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
	t.Logf("screenshot %s", filepath.Join(dir, name+".png"))
}

// script runs a JavaScript statement in the tab as an action.
func script(js string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](js)(ctx, t)
		return err
	})
}

// darkScheme makes the tab's prefers-color-scheme dark.
func darkScheme() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	})
}

// watchProblems has every page the tab loads record what went wrong in
// it: a request the Content-Security-Policy refused (an inline script or
// style, a foreign source) and an uncaught error. noProblems reads them.
// The recorder is DevTools', so the page's policy does not apply to it.
func watchProblems() chromedp.Action[chromedp.Void] {
	const js = `window.__problems = [];
addEventListener("securitypolicyviolation", (e) => window.__problems.push("policy refused " + e.violatedDirective + " " + e.blockedURI));
addEventListener("error", (e) => window.__problems.push("error: " + e.message));`
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: js})
		return err
	})
}

// noProblems fails the test if the tab's page recorded a problem.
func noProblems(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if got := evaluate[[]string](t, ctx, `window.__problems || ["the problem recorder is missing"]`); len(got) > 0 {
		t.Errorf("%s: the page had problems: %q", name, got)
	}
}
