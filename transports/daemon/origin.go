package daemon

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/troupehq/troupe/transports/httpjson"
)

// guard refuses requests a browser on another site could make: a foreign
// Origin (a page trying the daemon's port), and, on a loopback listener,
// a Host that is not a loopback name (DNS rebinding: evil.example resolved
// to 127.0.0.1 sends its own name as Host). Clients that are not browsers
// send no Origin and pass.
type guard struct {
	loopback bool
	origins  []string // allowed, as scheme://host[:port], lowercase
}

func newGuard(addr net.Addr, loopback, tls bool, extra []string) *guard {
	g := &guard{loopback: loopback}
	if tcp, ok := addr.(*net.TCPAddr); ok && loopback {
		scheme := "http"
		if tls {
			scheme = "https"
		}
		port := tcp.AddrPort().Port()
		for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
			g.origins = append(g.origins, scheme+"://"+h+":"+strconv.Itoa(int(port)))
		}
	}
	for _, o := range extra {
		g.origins = append(g.origins, strings.ToLower(strings.TrimRight(o, "/")))
	}
	return g
}

func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.loopback && !loopbackHost(r.Host) {
			httpjson.Error(w, http.StatusForbidden, "host "+r.Host+" is not allowed")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !g.allowed(o) {
			httpjson.Error(w, http.StatusForbidden, "origin "+o+" is not allowed")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (g *guard) allowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return slices.Contains(g.origins, strings.ToLower(u.Scheme+"://"+u.Host))
}

// loopbackHost reports whether a Host header names this machine.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
