package web

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed assets
var assets embed.FS

// Prefix is where the page's files are served; "/" is the page itself.
const Prefix = "/web/"

// Public reports whether a request is for the page or one of its files,
// which need no credential: they are the same for everyone and carry no
// data. Every API call the page makes still does.
func Public(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, Prefix)
}

// Handler serves the page at "/" and its files under Prefix.
func Handler() http.Handler {
	root, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("web: embedded assets: " + err.Error()) // the embed directive guarantees the folder
	}
	files := http.StripPrefix(Prefix, http.FileServerFS(root))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		secure(w, r)
		// The shell names its modules by path: a stale one after an
		// upgrade would load old code, so it is always revalidated.
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, root, "index.html")
	})
	mux.HandleFunc("GET "+Prefix, func(w http.ResponseWriter, r *http.Request) {
		secure(w, r)
		w.Header().Set("Cache-Control", "no-cache")
		if strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, "index.html") {
			http.NotFound(w, r) // no listings; the shell only at "/"
			return
		}
		files.ServeHTTP(w, r)
	})
	return mux
}

// secure sets the headers every file of the page is served with. The
// policy allows scripts, styles and connections to this origin alone (the
// WebSocket by its ws:/wss: URL, which older engines do not count as
// 'self'), images from it and data: URLs (pasted screenshots in
// history), and no inline script or style element: model output is
// untrusted, and whatever slipped past the sanitizer could not run.
func secure(w http.ResponseWriter, r *http.Request) {
	ws := ""
	if plainHost(r.Host) {
		ws = " ws://" + r.Host
		if r.TLS != nil {
			ws = " wss://" + r.Host
		}
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'"+ws+"; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

// plainHost reports whether host is only a name or address and a port,
// safe to write into the policy (nothing that could end a directive).
func plainHost(host string) bool {
	if host == "" {
		return false
	}
	for _, c := range host {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]", c)
		if !ok {
			return false
		}
	}
	return true
}
