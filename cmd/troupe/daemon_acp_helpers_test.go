package main

import (
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit/acpclient"
)

// acpWait bounds one wait on the daemon's WebSocket in these tests.
const acpWait = 30 * time.Second

// wsURL is the daemon's /acp address with query (may be empty).
func (d *daemonProc) wsURL(query string) string { return acpclient.URL(d.url, "/acp", query) }

// dialACP connects with the token as a subprotocol entry and initializes.
func (d *daemonProc) dialACP(t testing.TB, name string) *acpclient.Client {
	t.Helper()
	return acpclient.Dial(t, acpclient.Options{URL: d.wsURL(""), Subprotocols: acpclient.WithToken(d.token), Name: name, Wait: acpWait})
}
