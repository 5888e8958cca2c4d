package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	wire "github.com/troupehq/troupe/transports/jsonrpc"
)

const (
	// maxBody bounds one POSTed message, as the SDK's default does.
	maxBody = sdk.DefaultMaxRequestBodyBytes
	// idleSession closes an MCP session no request used for this long;
	// a call under way keeps it.
	idleSession = 30 * time.Minute
	// codeSessionNotFound is the error of an unknown or ended
	// Mcp-Session-Id (404), as the TypeScript SDK answers it.
	codeSessionNotFound = -32001
	// notHandled starts the SDK's plain-text answer to an unknown method
	// (its jsonrpc2.ErrNotHandled), answered -32601 here as over stdio.
	notHandled = "JSON RPC not handled"
)

// HTTPHandler serves Streamable HTTP (the daemon mounts it at /mcp behind
// its Origin check and bearer auth): the SDK's handler, stateful (an
// Mcp-Session-Id per initialize; GET opens the session's SSE stream,
// DELETE ends it; MCP-Protocol-Version checked; streams resumable with
// Last-Event-ID), with two additions of
// the spec's: a POST other than initialize without Mcp-Session-Id is 400,
// and every error is a JSON-RPC error with the request's id, where the
// SDK writes plain text.
func (s *Server) HTTPHandler() http.Handler {
	// The event store (in memory, bounded) lets a client whose stream
	// dropped resume it with Last-Event-ID, and gives 2025-11-25 streams
	// their priming event.
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{Logger: s.cfg.Log, SessionTimeout: idleSession, EventStore: sdk.NewMemoryEventStore(nil)})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id json.RawMessage
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
			switch {
			case err != nil:
				writeError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, fmt.Sprintf("read body: %v", err))
				return
			case len(body) > maxBody:
				writeError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message is at most %d bytes", maxBody))
				return
			case !json.Valid(body):
				writeError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "parse error: the body is not JSON")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			id = lineID(body)
			if r.Header.Get("Mcp-Session-Id") == "" && !initializes(body) {
				writeError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "Mcp-Session-Id header is required: initialize first")
				return
			}
		}
		jw := &jsonErrors{ResponseWriter: w, id: id}
		h.ServeHTTP(jw, r)
		jw.finish()
	})
}

// initializes reports whether body is an initialize request (a batch
// holding one counts).
func initializes(body []byte) bool {
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method == "initialize"
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) != nil {
		return false
	}
	for _, m := range batch {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}

// writeError answers an error as lineConn.reply does over stdio.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = wire.Null
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": wire.NewError(int(code), msg)})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// jsonErrors turns the SDK's plain-text error answers (http.Error) into
// JSON-RPC errors carrying the request's id; everything else passes.
type jsonErrors struct {
	http.ResponseWriter
	id      json.RawMessage
	status  int // an error being rewritten; 0 otherwise
	message bytes.Buffer
}

func (j *jsonErrors) WriteHeader(status int) {
	h := j.Header()
	if status < 400 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		j.ResponseWriter.WriteHeader(status)
		return
	}
	j.status = status
	h.Del("Content-Length")
	h.Del("X-Content-Type-Options")
}

func (j *jsonErrors) Write(b []byte) (int, error) {
	if j.status != 0 {
		return j.message.Write(b)
	}
	return j.ResponseWriter.Write(b)
}

// finish writes the rewritten error, if any.
func (j *jsonErrors) finish() {
	if j.status == 0 {
		return
	}
	code := int64(jsonrpc.CodeInvalidRequest)
	msg := strings.TrimSpace(j.message.String())
	switch {
	case strings.HasPrefix(msg, notHandled):
		code, msg = jsonrpc.CodeMethodNotFound, "method not found"+strings.TrimPrefix(msg, notHandled)
	case j.status == http.StatusNotFound:
		code = codeSessionNotFound
	case j.status >= 500:
		code = jsonrpc.CodeInternalError
	}
	writeError(j.ResponseWriter, j.status, j.id, code, msg)
}

// Flush and Unwrap keep the SDK's SSE streams flowing through the wrapper.
func (j *jsonErrors) Flush() {
	if f, ok := j.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (j *jsonErrors) Unwrap() http.ResponseWriter { return j.ResponseWriter }
