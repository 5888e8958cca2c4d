package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// setPassword sets the home's master password with `troupe auth password`.
func setPassword(t *testing.T, home, password string) {
	t.Helper()
	set := testkit.Start(t, testkit.BuildTroupe(t), nil, "auth", "password", "--home", home)
	_, _ = set.Stdin.Write([]byte(password + "\n"))
	set.Stdin.Close()
	testkit.Equal(t, set.Wait(t, 30*time.Second), 0)
}

// clientFrom is an HTTP client whose connections leave from the loopback
// address local (127.0.0.x), as a local attacker spreading over them would.
func clientFrom(local string) *http.Client {
	dl := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dl.DialContext, DisableKeepAlives: true}}
}

// Forty wrong passwords at once from eight loopback addresses: at most
// five are checked (answered 401, and logged as a check), the others are
// refused 429 before any compare; the right password is then refused too,
// until the window passes.
func TestDaemonLoginLimitHoldsAcrossAddressesAndConcurrency(t *testing.T) {
	home := t.TempDir()
	setPassword(t, home, "correct horse")
	// Five bcrypt checks at once take over the clients' 30 s under -race
	// on a loaded machine (one takes 4 s, against 0.3 s without).
	d := startDaemonBinary(t, home, nil)

	const n = 40
	codes := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clientFrom(fmt.Sprintf("127.0.0.%d", 2+i%8))
			<-start
			res, err := c.Post(d.url+"/v1/auth/login", "application/json", strings.NewReader(`{"password":"wrong"}`))
			if err != nil {
				t.Errorf("login %d: %v", i, err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			codes[i] = res.StatusCode
		}()
	}
	close(start)
	wg.Wait()
	counts := map[int]int{}
	for _, c := range codes {
		counts[c]++
	}
	if counts[http.StatusUnauthorized] == 0 || counts[http.StatusUnauthorized] > 5 ||
		counts[http.StatusUnauthorized]+counts[http.StatusTooManyRequests] != n {
		t.Fatalf("answers %v: want at most 5 checked (401), the rest 429", counts)
	}
	// The daemon logs each check it made: no more than five. The lines
	// reach this test through a pipe, after the answers.
	logged := func() int { return strings.Count(d.proc.Stderr(), "login: wrong password") }
	testkit.Eventually(t, 5*time.Second, "the checks logged", func() bool { return logged() >= counts[http.StatusUnauthorized] })
	if got := logged(); got != counts[http.StatusUnauthorized] {
		t.Fatalf("%d checks logged, %d answered 401", got, counts[http.StatusUnauthorized])
	}
	res := d.doWith(t, "POST", "/v1/auth/login", `{"password":"correct horse"}`, nil)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	wantError(t, res, http.StatusTooManyRequests)
	// Other addresses are refused alike.
	res2, err := clientFrom("127.0.0.77").Post(d.url+"/v1/auth/login", "application/json", strings.NewReader(`{"password":"correct horse"}`))
	testkit.NoError(t, err)
	t.Cleanup(func() { res2.Body.Close() })
	wantError(t, res2, http.StatusTooManyRequests)
	// The service token still works: the owner is not locked out.
	d.call(t, "GET", "/v1/auth/verify", nil, http.StatusOK, nil)
}

// ttlSec is validated in seconds, 1 … 30 days; a value near the int64
// maximum used to overflow into an expired token.
func TestDaemonLoginValidatesTTL(t *testing.T) {
	home := t.TempDir()
	setPassword(t, home, "correct horse")
	d := startDaemon(t, home, nil)
	for _, ttl := range []string{"-1", "2592001", "9223372036854775807", "9223372036854775", "9223372036"} {
		res := d.doWith(t, "POST", "/v1/auth/login", `{"password":"correct horse","ttlSec":`+ttl+`}`, nil)
		if msg := wantError(t, res, http.StatusBadRequest); !strings.Contains(msg, "ttlSec") {
			t.Errorf("ttlSec %s: error %q", ttl, msg)
		}
	}
	var login struct {
		SessionToken string    `json:"session_token"`
		ExpiresAt    time.Time `json:"expires_at"`
	}
	d.call(t, "POST", "/v1/auth/login", map[string]any{"password": "correct horse", "ttlSec": 2592000}, http.StatusOK, &login)
	if left := time.Until(login.ExpiresAt); left < 29*24*time.Hour || left > 30*24*time.Hour {
		t.Fatalf("a 30-day token expires in %s", left)
	}
	testkit.Equal(t, d.doWith(t, "GET", "/v1/auth/verify", nil, map[string]string{"Authorization": "Bearer " + login.SessionToken}).StatusCode, http.StatusOK)
}

// Without a valid token every /mcp/* path answers the same 401, whether
// an extension registered that name or not.
func TestDaemonMCPAnswersAlikeWithoutAToken(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	log := d.registerPlugin(t, "extensions", "tools", map[string]string{"PLUGIN_TOOLS": "1"})
	d.waitRunning(t, "extensions", "tools", log, 0)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	var answers []string
	for _, path := range []string{"/mcp/tools", "/mcp/nonesuch", "/mcp/hydra-acp-stdin", "/mcp/a/b"} {
		for _, h := range []map[string]string{nil, {"Authorization": "Bearer nope"}, {"Authorization": "Bearer x.y"}} {
			res := d.doWith(t, "POST", path, body, h)
			msg := wantError(t, res, http.StatusUnauthorized)
			answers = append(answers, msg)
		}
	}
	for _, a := range answers {
		testkit.Equal(t, a, answers[0])
	}
}

// A program's own token may read the plugin lists, not manage them: an
// extension cannot register a transformer (and so run a program with
// transformer rights), nor start, stop or delete one; nor may it list or
// revoke the user's logins.
func TestDaemonProcessTokenCannotManagePlugins(t *testing.T) {
	home := t.TempDir()
	setPassword(t, home, "correct horse")
	d := startDaemon(t, home, nil)
	log := d.registerPlugin(t, "extensions", "ext", nil)
	d.waitRunning(t, "extensions", "ext", log, 0)
	tok := processToken(t, d.plugin(t, "extensions", "ext").PID)
	as := map[string]string{"Authorization": "Bearer " + tok}
	reg := map[string]any{"name": "evil", "command": []string{"/bin/true"}}
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/v1/transformers", reg}, {"POST", "/v1/extensions", reg},
		{"POST", "/v1/extensions/ext/stop", nil}, {"POST", "/v1/extensions/ext/restart", nil},
		{"DELETE", "/v1/extensions/ext", nil},
	} {
		res := d.doWith(t, r.method, r.path, r.body, as)
		if msg := wantError(t, res, http.StatusForbidden); !strings.Contains(msg, "may not manage") {
			t.Errorf("%s %s: %q", r.method, r.path, msg)
		}
	}
	// Nor may it see or revoke the user's logins.
	_, loginID := d.login(t, "correct horse", 0)
	for _, r := range []struct{ method, path string }{
		{"GET", "/v1/auth/sessions"}, {"DELETE", "/v1/auth/sessions/" + loginID},
	} {
		res := d.doWith(t, r.method, r.path, nil, as)
		if msg := wantError(t, res, http.StatusForbidden); !strings.Contains(msg, "logins") {
			t.Errorf("%s %s: %q", r.method, r.path, msg)
		}
	}
	// Reading is allowed, and nothing was registered or stopped.
	res := d.doWith(t, "GET", "/v1/transformers", nil, as)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	var list struct{ Transformers []pluginInfo }
	b, _ := io.ReadAll(res.Body)
	testkit.NoError(t, json.Unmarshal(b, &list))
	if len(list.Transformers) != 0 {
		t.Fatalf("transformers %s", b)
	}
	testkit.Equal(t, d.plugin(t, "extensions", "ext").Status, "running")
	// The daemon's token may.
	d.call(t, "POST", "/v1/extensions/ext/stop", nil, http.StatusOK, nil)
}

// login mints a session token with the password, for ttlSec seconds (0:
// the default).
func (d *daemonProc) login(t *testing.T, password string, ttlSec int) (token, id string) {
	t.Helper()
	var out struct {
		SessionToken string `json:"session_token"`
		ID           string `json:"id"`
	}
	body := map[string]any{"password": password}
	if ttlSec > 0 {
		body["ttlSec"] = ttlSec
	}
	d.call(t, "POST", "/v1/auth/login", body, http.StatusOK, &out)
	return out.SessionToken, out.ID
}

// closedWithin reads c's frames until the daemon closes it, and reports
// how long that took from start; it fails when it stays open past limit.
func closedWithin(t *testing.T, c *acpclient.Client, start time.Time, limit time.Duration) time.Duration {
	t.Helper()
	_ = c.WS.SetReadDeadline(start.Add(limit))
	for {
		if _, _, err := c.WS.ReadMessage(); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("the connection was still open %s later", limit)
			}
			return time.Since(start)
		}
	}
}

// A WebSocket opened with a login token is closed when the token is
// revoked (logout, or DELETE by id) or expires, within a second; and the
// token opens no new one.
func TestDaemonClosesConnectionsOfDeadLoginTokens(t *testing.T) {
	home := t.TempDir()
	setPassword(t, home, "correct horse")
	// A login's bcrypt check takes over a second under -race, past the
	// bound on a two-second token's expiry measured from before it.
	d := startDaemonBinary(t, home, nil)
	dial := func(tok string) *acpclient.Client {
		return acpclient.Dial(t, acpclient.Options{URL: d.wsURL(""), Subprotocols: acpclient.WithToken(tok), Name: "browser", Wait: acpWait})
	}

	// Logout with the token itself.
	tok, _ := d.login(t, "correct horse", 0)
	c := dial(tok)
	c.NewSession(t.TempDir())
	res := d.doWith(t, "POST", "/v1/auth/logout", nil, map[string]string{"Authorization": "Bearer " + tok})
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	took := closedWithin(t, c, time.Now(), time.Second)
	t.Logf("closed %s after logout", took)
	testkit.Equal(t, acpclient.DialStatus(t, d.wsURL(""), nil, acpclient.WithToken(tok)...), http.StatusUnauthorized)

	// Revoked by id, from another connection.
	tok, id := d.login(t, "correct horse", 0)
	c = dial(tok)
	res = d.do(t, "DELETE", "/v1/auth/sessions/"+id, nil)
	testkit.Equal(t, res.StatusCode, http.StatusNoContent)
	t.Logf("closed %s after DELETE", closedWithin(t, c, time.Now(), time.Second))

	// Expiry: a two-second token's connection ends within a second of it.
	before := time.Now()
	tok, _ = d.login(t, "correct horse", 2)
	// The token's two seconds start somewhere within the login, which a
	// loaded machine stretches: the bound counts from its answer.
	answered := time.Since(before)
	c = dial(tok)
	took = closedWithin(t, c, before, answered+3*time.Second)
	if took < 2*time.Second-100*time.Millisecond {
		t.Fatalf("closed %s after login, before the token expired", took)
	}
	t.Logf("closed %s after a 2 s login", took)

	// A follow stream opened with a login token ends with it too.
	tok, _ = d.login(t, "correct horse", 0)
	sid := d.create(t, t.TempDir())
	req, err := http.NewRequest("GET", d.url+"/v1/sessions/"+sid+"/history?follow=1", nil)
	testkit.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	stream, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	defer stream.Body.Close()
	testkit.Equal(t, stream.StatusCode, http.StatusOK)
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, stream.Body); ended <- err }()
	d.doWith(t, "POST", "/v1/auth/logout", nil, map[string]string{"Authorization": "Bearer " + tok})
	select {
	case <-ended:
	case <-time.After(time.Second):
		t.Fatal("the follow stream outlived its token by a second")
	}
}

// A program's connection dies with it: a connection opened with a
// transformer's per-process token (read from its environment, as any
// process of the user could) is closed within a second of the program's
// SIGKILL, and its token opens no new one.
func TestDaemonClosesConnectionsOfDeadPrograms(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	log := d.registerPlugin(t, "transformers", "tf", nil)
	in := d.waitRunning(t, "transformers", "tf", log, 0)
	tok := processToken(t, in.PID)
	c := d.dialProcess(t, in.PID, "impostor")
	killed := time.Now()
	testkit.NoError(t, syscall.Kill(in.PID, syscall.SIGKILL))
	t.Logf("closed %s after the kill", closedWithin(t, c, killed, time.Second))
	testkit.Equal(t, acpclient.DialStatus(t, d.wsURL(""), nil, acpclient.WithToken(tok)...), http.StatusUnauthorized)
}
