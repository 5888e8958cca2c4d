package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// The web page and its files need no credential and come with a policy
// that runs no inline script; every API call the page makes still needs
// one, and nothing but GET/HEAD of the page's own paths is let through.
func TestWebPageServedWithoutAuthAPINot(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	get := func(path string) (*http.Response, string) {
		res := d.doWith(t, "GET", path, nil, nil)
		b, err := io.ReadAll(res.Body)
		testkit.NoError(t, err)
		return res, string(b)
	}

	res, page := get("/")
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	testkit.Equal(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/html"), true)
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "frame-ancestors 'none'", "connect-src 'self' ws://" + strings.TrimPrefix(d.url, "http://")} {
		if !strings.Contains(csp, want) {
			t.Errorf("the page's policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("the page's policy allows unsafe sources: %q", csp)
	}
	// Every script is a file: the policy would refuse an inline one.
	scripts := regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1)
	testkit.Equal(t, len(scripts), 1)
	testkit.Equal(t, scripts[0], `<script type="module" src="/web/app.js">`)

	for _, path := range []string{"/web/app.js", "/web/session.js", "/web/vendor/dompurify/purify.es.mjs",
		"/web/vendor/marked/marked.esm.js", "/web/vendor/highlight/highlight.min.js", "/web/vendor/diff/libesm/index.js"} {
		res, body := get(path)
		testkit.Equal(t, res.StatusCode, http.StatusOK)
		// A module script with another type is refused by the browser.
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Errorf("%s is served as %q, not JavaScript", path, ct)
		}
		testkit.Equal(t, res.Header.Get("X-Content-Type-Options"), "nosniff")
		testkit.Equal(t, len(body) > 0, true)
	}
	res, _ = get("/web/app.css")
	testkit.Equal(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/css"), true)
	res, _ = get("/web/")
	testkit.Equal(t, res.StatusCode, http.StatusNotFound) // no listing
	res, _ = get("/web/nothing.js")
	testkit.Equal(t, res.StatusCode, http.StatusNotFound)

	// The API is not the page: still refused without a token.
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/sessions"}, {"GET", "/v1/auth/verify"}, {"POST", "/"}, {"GET", "/acp"}, {"GET", "/v1/config"},
	} {
		res := d.doWith(t, c.method, c.path, nil, nil)
		testkit.Equal(t, res.StatusCode, http.StatusUnauthorized)
	}
	res = d.doWith(t, "GET", "/v1/sessions", nil, map[string]string{"Authorization": "Bearer " + d.token})
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	// The daemon's Origin check still holds for the page's own calls.
	res = d.doWith(t, "GET", "/", nil, map[string]string{"Origin": "http://evil.example"})
	testkit.Equal(t, res.StatusCode, http.StatusForbidden)
}
