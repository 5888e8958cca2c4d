package stdinring

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/troupehq/troupe/transports/httpjson"
)

// MaxChunkBody bounds one POST .../stdin body; producers send more chunks.
const MaxChunkBody = 8 << 20

// Live reports whether a session is live in this daemon.
type Live func(ctx context.Context, id string) (bool, error)

// Routes serves the producer side of the ring over REST.
type Routes struct {
	Rings *Registry
	Live  Live
	// Sessions lists the live sessions, for sweeping rings when the
	// budget runs out; nil never sweeps.
	Sessions func(ctx context.Context) ([]string, error)
	// Log takes the internal errors clients are not shown (nil: slog's
	// default).
	Log *slog.Logger
}

// Register adds POST /v1/sessions/{id}/stdin/open and POST /v1/sessions/{id}/stdin.
func (h *Routes) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/sessions/{id}/stdin/open", h.open)
	mux.HandleFunc("POST /v1/sessions/{id}/stdin", h.append)
}

type openReply struct {
	FilePath      string `json:"filePath,omitempty"`
	CapacityBytes int64  `json:"capacityBytes"`
	FileCapBytes  int64  `json:"fileCapBytes,omitempty"`
}

func (h *Routes) open(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var o Options
	if err := httpjson.DecodeBody(w, r, &o, 64<<10, true); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if !h.requireLive(w, r, id) {
		return
	}
	ring, err := h.Rings.Open(id, o)
	if errors.Is(err, ErrBudget) && h.sweep(r.Context()) > 0 {
		ring, err = h.Rings.Open(id, o)
	}
	switch {
	case errors.Is(err, ErrAlreadyOpen), errors.Is(err, ErrBudget):
		httpjson.Error(w, http.StatusConflict, "session "+id+": "+err.Error())
		return
	case err != nil:
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	info := ring.Info()
	httpjson.WriteJSON(w, http.StatusOK, openReply{FilePath: info.FilePath, CapacityBytes: info.CapacityBytes, FileCapBytes: info.FileCapBytes})
}

type chunkBody struct {
	Chunk *string `json:"chunk"` // base64 of the bytes
	EOF   bool    `json:"eof"`
}

func (h *Routes) append(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var b chunkBody
	if err := httpjson.DecodeBody(w, r, &b, MaxChunkBody, false); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if b.Chunk == nil && !b.EOF {
		httpjson.Error(w, http.StatusBadRequest, "chunk is required unless eof is true")
		return
	}
	ring, err := h.Rings.Get(id)
	if err != nil {
		if h.requireLive(w, r, id) {
			httpjson.Error(w, http.StatusConflict, "session "+id+": "+err.Error()+": POST /v1/sessions/"+id+"/stdin/open first")
		}
		return
	}
	var chunk []byte
	if b.Chunk != nil {
		// Bytes travel base64-encoded, as Hydra's own producer (hydra
		// cat --stream) sends them: stdin need not be UTF-8.
		if chunk, err = base64.StdEncoding.DecodeString(*b.Chunk); err != nil {
			httpjson.Error(w, http.StatusBadRequest, "chunk is not base64: "+err.Error())
			return
		}
	}
	end, err := ring.Write(chunk, b.EOF)
	if err != nil {
		httpjson.Error(w, http.StatusConflict, "session "+id+": "+err.Error())
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]int64{"writeCursor": end})
}

// sweep frees the rings of sessions no longer live: rings are not
// dropped when their session stops, only when their memory is wanted.
func (h *Routes) sweep(ctx context.Context) int {
	if h.Sessions == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	live, err := h.Sessions(ctx)
	if err != nil {
		return 0
	}
	return h.Rings.Sweep(func(id string) bool { return slices.Contains(live, id) })
}

// requireLive answers 404 unless session id is live.
func (h *Routes) requireLive(w http.ResponseWriter, r *http.Request, id string) bool {
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	live, err := h.Live(ctx, id)
	if err != nil {
		httpjson.Internal(w, h.Log, fmt.Errorf("check session %s: %w", id, err), "session", id)
		return false
	}
	if !live {
		httpjson.Error(w, http.StatusNotFound, "session "+id+" is not live")
		return false
	}
	return true
}
