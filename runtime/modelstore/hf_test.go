package modelstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// hub is a local Hugging-Face-like endpoint: HEAD and GET on
// /{owner}/{repo}/resolve/main/{file} redirect to /cdn/{file} with
// X-Linked-Size and X-Linked-Etag, as huggingface.co does, and /cdn serves
// ranges. cutAt > 0 makes the next CDN answer break after that many bytes.
type hub struct {
	files map[string][]byte
	token string

	mu     sync.Mutex
	cutAt  int
	ranges []string // the Range header of each CDN GET
}

func newHub(t *testing.T, files map[string][]byte) (*hub, string) {
	h := &hub{files: files}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.token != "" && r.Header.Get("Authorization") != "Bearer "+h.token && !strings.HasPrefix(r.URL.Path, "/cdn/") {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if name, ok := strings.CutPrefix(r.URL.Path, "/cdn/"); ok {
		h.cdn(w, r, name)
		return
	}
	_, name, ok := strings.Cut(r.URL.Path, "/resolve/main/")
	body, found := h.files[name]
	if !ok || !found {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256(body)
	w.Header().Set("X-Linked-Size", itoa(len(body)))
	w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
	http.Redirect(w, r, "/cdn/"+name, http.StatusFound)
}

func (h *hub) cdn(w http.ResponseWriter, r *http.Request, name string) {
	body := h.files[name]
	h.mu.Lock()
	cut := h.cutAt
	h.cutAt = 0
	if r.Method == http.MethodGet {
		h.ranges = append(h.ranges, r.Header.Get("Range"))
	}
	h.mu.Unlock()
	if cut > 0 {
		w.Header().Set("Content-Length", itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:cut])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection drops mid-body
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

func itoa(n int) string { return strconv.Itoa(n) }

func tinyModel(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../gguf/testdata/tiny-llama-random.gguf")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
