// Package web serves the daemon's web page: one HTML shell and its ES
// modules, styles and vendored libraries, embedded in the binary (no build
// step, no bundler). The page is one more client of the daemon's existing
// surface, REST under /v1 and the ACP WebSocket at /acp, with the token a
// person signs in for; this package serves only the static files and the
// headers that keep them safe (a Content-Security-Policy with no inline
// script, no framing, no sniffing). It holds no session state, reads no
// credential and must never serve anything that needs one: the daemon
// lets `/` and `/web/` through without authentication (daemon.Auth.wrap)
// because of that.
package web
