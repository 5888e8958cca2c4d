package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// protectedRoutes are every REST route but health and login.
var protectedRoutes = []struct{ method, path string }{
	{"POST", "/v1/auth/logout"}, {"GET", "/v1/auth/verify"}, {"GET", "/v1/auth/sessions"},
	{"DELETE", "/v1/auth/sessions/tok_x"}, {"GET", "/v1/config"}, {"GET", "/v1/agents"},
	{"GET", "/v1/sessions"}, {"POST", "/v1/sessions"}, {"GET", "/v1/sessions/events?kinds=tool_call"},
	{"GET", "/v1/sessions/S"}, {"PATCH", "/v1/sessions/S"}, {"DELETE", "/v1/sessions/S"},
	{"POST", "/v1/sessions/S/kill"}, {"GET", "/v1/sessions/S/history"}, {"GET", "/v1/sessions/S/events?kinds=tool_call"},
}

func TestDaemonRefusesMissingOrWrongTokens(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	for _, r := range protectedRoutes {
		for name, header := range map[string]map[string]string{
			"none":         nil,
			"wrong bearer": {"Authorization": "Bearer " + d.token + "x"},
			"not bearer":   {"Authorization": "Basic " + d.token},
			"empty bearer": {"Authorization": "Bearer "},
		} {
			res := d.doWith(t, r.method, r.path, nil, header)
			if msg := wantError(t, res, http.StatusUnauthorized); !strings.Contains(msg, "token") {
				t.Errorf("%s %s (%s): error %q", r.method, r.path, name, msg)
			}
		}
	}
	// Health needs no token; the token in any of its three forms is taken.
	d.call(t, "GET", "/v1/health", nil, http.StatusOK, nil)
	res := d.doWith(t, "GET", "/v1/health", nil, nil)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	for _, header := range []map[string]string{
		{"Sec-WebSocket-Protocol": "acp.v1, hydra-acp-token." + d.token},
	} {
		testkit.Equal(t, d.doWith(t, "GET", "/v1/auth/verify", nil, header).StatusCode, http.StatusOK)
	}
	testkit.Equal(t, d.doWith(t, "GET", "/v1/auth/verify?token="+d.token, nil, nil).StatusCode, http.StatusOK)
}

func TestDaemonTokenFileIsPrivateAndKept(t *testing.T) {
	home := t.TempDir()
	// Killed below (Stop): that needs its own process.
	d := startDaemonBinary(t, home, nil)
	fi, err := os.Stat(filepath.Join(home, "auth-token"))
	testkit.NoError(t, err)
	testkit.Equal(t, fi.Mode().Perm(), os.FileMode(0o600))
	first := d.token
	d.proc.Stop()
	d = startDaemon(t, home, nil)
	testkit.Equal(t, d.token, first)
	d.call(t, "GET", "/v1/auth/verify", nil, http.StatusOK, nil)
}

func TestDaemonRefusesForeignOrigins(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil, "--allow-origin", "chrome-extension://abc")
	bearer := "Bearer " + d.token
	for _, origin := range []string{"http://evil.example", "http://localhost:1", "null"} {
		res := d.doWith(t, "GET", "/v1/sessions", nil, map[string]string{"Authorization": bearer, "Origin": origin})
		wantError(t, res, http.StatusForbidden)
	}
	// DNS rebinding: a foreign name resolved to loopback sends its own Host.
	res := d.doWith(t, "GET", "/v1/health", nil, map[string]string{"Host": "evil.example"})
	wantError(t, res, http.StatusForbidden)
	for _, origin := range []string{d.url, "chrome-extension://abc"} {
		res := d.doWith(t, "GET", "/v1/sessions", nil, map[string]string{"Authorization": bearer, "Origin": origin})
		testkit.Equal(t, res.StatusCode, http.StatusOK)
	}
}

func TestDaemonLoginTokensAndRateLimit(t *testing.T) {
	home := t.TempDir()
	bin := testkit.BuildTroupe(t)
	d := startDaemon(t, home, nil)
	wantError(t, d.doWith(t, "POST", "/v1/auth/login", `{"password":"pw"}`, nil), http.StatusForbidden)

	set := testkit.Start(t, bin, nil, "auth", "password", "--home", home)
	_, _ = set.Stdin.Write([]byte("correct horse\n"))
	set.Stdin.Close()
	testkit.Equal(t, set.Wait(t, 30e9), 0)
	stored, err := os.ReadFile(filepath.Join(home, "auth-password"))
	testkit.NoError(t, err)
	if strings.Contains(string(stored), "correct horse") || !strings.HasPrefix(string(stored), "$2") {
		t.Fatalf("auth-password holds %q, want a bcrypt hash", stored)
	}

	wantError(t, d.doWith(t, "POST", "/v1/auth/login", `{"password":`, nil), http.StatusBadRequest)
	var login struct {
		SessionToken string `json:"session_token"`
		ID           string `json:"id"`
		ExpiresAt    string `json:"expires_at"`
	}
	d.call(t, "POST", "/v1/auth/login", map[string]any{"password": "correct horse", "label": "laptop", "ttlSec": 60}, http.StatusOK, &login)
	if login.SessionToken == "" || login.ID == "" || login.ExpiresAt == "" {
		t.Fatalf("login: %+v", login)
	}
	asSession := map[string]string{"Authorization": "Bearer " + login.SessionToken}
	testkit.Equal(t, d.doWith(t, "GET", "/v1/sessions", nil, asSession).StatusCode, http.StatusOK)
	var list struct {
		Sessions []struct{ ID, Label string }
	}
	d.call(t, "GET", "/v1/auth/sessions", nil, http.StatusOK, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != login.ID || list.Sessions[0].Label != "laptop" {
		t.Fatalf("auth sessions: %+v", list)
	}
	// Logout without a body revokes the caller's own token.
	var out struct{ Revoked bool }
	res := d.doWith(t, "POST", "/v1/auth/logout", nil, asSession)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	wantError(t, d.doWith(t, "GET", "/v1/sessions", nil, asSession), http.StatusUnauthorized)
	d.call(t, "POST", "/v1/auth/logout", nil, http.StatusOK, &out)
	testkit.Equal(t, out.Revoked, false) // the service token is never revoked
	wantError(t, d.do(t, "DELETE", "/v1/auth/sessions/"+login.ID, nil), http.StatusNotFound)

	// A second token, revoked by id.
	d.call(t, "POST", "/v1/auth/login", map[string]any{"password": "correct horse"}, http.StatusOK, &login)
	res = d.do(t, "DELETE", "/v1/auth/sessions/"+login.ID, nil)
	testkit.Equal(t, res.StatusCode, http.StatusNoContent)
	wantError(t, d.doWith(t, "GET", "/v1/auth/verify", nil, map[string]string{"Authorization": "Bearer " + login.SessionToken}), http.StatusUnauthorized)

	// Five failures, then 429 even for the right password.
	for range 5 {
		wantError(t, d.doWith(t, "POST", "/v1/auth/login", `{"password":"wrong"}`, nil), http.StatusUnauthorized)
	}
	wantError(t, d.doWith(t, "POST", "/v1/auth/login", `{"password":"wrong"}`, nil), http.StatusTooManyRequests)
	wantError(t, d.doWith(t, "POST", "/v1/auth/login", `{"password":"correct horse"}`, nil), http.StatusTooManyRequests)
	// The daemon still serves.
	d.call(t, "GET", "/v1/health", nil, http.StatusOK, nil)
}

func TestDaemonRefusesNonLoopbackWithoutTLS(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	p := testkit.Start(t, bin, nil, "daemon", "--home", t.TempDir(), "--listen", "0.0.0.0:0")
	testkit.Equal(t, p.Wait(t, 20e9), 2)
	if !strings.Contains(p.Stderr(), "without TLS") {
		t.Fatalf("stderr: %s", p.Stderr())
	}
}
