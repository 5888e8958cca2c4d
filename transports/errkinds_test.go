package transports_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/jsonrpc"
	"github.com/troupehq/troupe/transports/jsonstream"
	"github.com/troupehq/troupe/transports/mcp"
	"github.com/troupehq/troupe/transports/rest"
)

// kindAnswer is what a protocol answers for a kind of facade error.
type kindAnswer struct {
	err error // an error of the kind, as the facade returns it

	acpCode      int
	acpErrorKind string // data.errorKind; "" none

	httpStatus int  // 0: nothing written (the client left)
	httpRef    bool // the body is a ref to the log, not the error's text

	mcpText string // the tool error's text

	streamCode      string
	streamRetryable bool
}

var heldErr = &sessions.LeaseHeldError{Holder: persistence.Holder{SessionID: "s1",
	Owner: persistence.Owner{PID: 42, Command: "troupe run"}}}

// kindAnswers is every kind of facade error on every protocol that has
// a shape per kind. pi's RPC mode has one failure shape for all of them
// (success false, the error's text), so it has no column.
var kindAnswers = map[sessions.Kind]kindAnswer{
	sessions.KindInternal: {err: errors.New("SQL logic error near \"SELEC\""),
		acpCode: jsonrpc.CodeInternal, httpStatus: http.StatusInternalServerError, httpRef: true,
		mcpText: `session s1: SQL logic error near "SELEC"`, streamCode: jsonstream.CodeInternal},
	sessions.KindNotFound: {err: fmt.Errorf("meta: %w", sessions.ErrNotFound),
		acpCode: acp.CodeSessionNotFound, httpStatus: http.StatusNotFound,
		mcpText: "no session s1", streamCode: jsonstream.CodeInternal},
	sessions.KindInvalid: {err: fmt.Errorf("%w: a session holds at most 64 flags", sessions.ErrAttentionLimit),
		acpCode: jsonrpc.CodeInvalidParams, httpStatus: http.StatusBadRequest,
		mcpText: "session s1: attention flags limit: a session holds at most 64 flags", streamCode: jsonstream.CodeProtocol},
	sessions.KindExists: {err: sessions.ErrExists,
		acpCode: jsonrpc.CodeInternal, httpStatus: http.StatusConflict,
		mcpText: "session s1: session already exists", streamCode: jsonstream.CodeInternal},
	sessions.KindHasForks: {err: fmt.Errorf("%w: s2", sessions.ErrHasForks),
		acpCode: jsonrpc.CodeInvalidParams, httpStatus: http.StatusConflict,
		mcpText: "session s1: " + sessions.ErrHasForks.Error() + ": s2", streamCode: jsonstream.CodeInternal},
	sessions.KindHeld: {err: heldErr,
		acpCode: jsonrpc.CodeInternal, acpErrorKind: "session_held", httpStatus: http.StatusConflict,
		mcpText: "session s1: " + heldErr.Error(), streamCode: jsonstream.CodeInternal, streamRetryable: true},
	sessions.KindBusy: {err: sessions.ErrBusy,
		acpCode: jsonrpc.CodeInternal, httpStatus: http.StatusConflict,
		mcpText: "session s1: a run is in progress", streamCode: jsonstream.CodeInternal, streamRetryable: true},
	sessions.KindNoRun: {err: sessions.ErrNoRun,
		acpCode: jsonrpc.CodeInternal, httpStatus: http.StatusConflict,
		mcpText: "session s1: no run is in progress", streamCode: jsonstream.CodeInternal},
	sessions.KindNoEngine: {err: sessions.ErrNoEngine,
		acpCode: jsonrpc.CodeInternal, httpStatus: http.StatusServiceUnavailable,
		mcpText: "session s1: " + sessions.ErrNoEngine.Error(), streamCode: jsonstream.CodeConfig},
	sessions.KindFailed: {err: fmt.Errorf("%w: panic: boom", sessions.ErrFailed),
		acpCode: jsonrpc.CodeInternal, httpStatus: http.StatusInternalServerError, httpRef: true,
		mcpText: "session s1: session failed and was stopped: panic: boom", streamCode: jsonstream.CodeInternal},
	sessions.KindDiskFull: {err: &persistence.WriteError{Full: true, Err: errors.New("database or disk is full")},
		acpCode: jsonrpc.CodeInternal, acpErrorKind: "disk_full", httpStatus: http.StatusInsufficientStorage,
		mcpText: "session s1: the store's disk is full: database or disk is full", streamCode: jsonstream.CodeInternal},
	sessions.KindStoreWrite: {err: &persistence.WriteError{Err: errors.New("attempt to write a readonly database")},
		acpCode: jsonrpc.CodeInternal, acpErrorKind: "store_write", httpStatus: http.StatusServiceUnavailable,
		mcpText: "session s1: the store could not be written: attempt to write a readonly database", streamCode: jsonstream.CodeInternal},
	sessions.KindUnreachable: {err: &sessions.UnreachableError{Session: "s1", Err: context.DeadlineExceeded},
		acpCode: jsonrpc.CodeInternal, httpStatus: http.StatusInternalServerError, httpRef: true,
		mcpText: "session s1: session s1: context deadline exceeded", streamCode: jsonstream.CodeInternal, streamRetryable: true},
	sessions.KindCancelled: {err: fmt.Errorf("prompt: %w", context.Canceled),
		acpCode: jsonrpc.CodeInternal,
		mcpText: "session s1: prompt: context canceled", streamCode: jsonstream.CodeInternal},
}

// Every kind of facade error, on every protocol, answers as the facade's
// one table says; a kind added without a row here fails.
func TestErrorKindsOnEveryProtocol(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, kind := range sessions.Kinds() {
		want, ok := kindAnswers[kind]
		if !ok {
			t.Errorf("kind %s has no row: say what each protocol answers for it", kind)
			continue
		}
		t.Run(kind.String(), func(t *testing.T) {
			if got := sessions.KindOf(want.err); got != kind {
				t.Fatalf("the row's error %v is of kind %s", want.err, got)
			}
			text := want.err.Error()

			e := acp.SessionError("s1", want.err)
			if e.Code != want.acpCode || errorKind(e.Data) != want.acpErrorKind {
				t.Errorf("ACP: code %d, data %s; want %d, errorKind %q", e.Code, e.Data, want.acpCode, want.acpErrorKind)
			}
			if kind == sessions.KindNotFound {
				text = "session s1 not found"
			}
			if !strings.Contains(e.Message, text) {
				t.Errorf("ACP: message %q does not say %q", e.Message, text)
			}

			rec := httptest.NewRecorder()
			rest.SessionError(rec, log, "s1", want.err)
			checkREST(t, rec, want, text)

			r := mcp.SessionError("s1", want.err)
			if !r.IsError || len(r.Content) != 1 || r.Content[0].(*sdk.TextContent).Text != want.mcpText {
				t.Errorf("MCP: %+v; want the tool error %q", r.Content, want.mcpText)
			}

			s := jsonstream.SessionError("m1", "set_mode", want.err)
			if s.Type != "error" || *s.MsgID != "m1" || s.Error.Code != want.streamCode ||
				s.Error.Retryable != want.streamRetryable || s.Error.Message != "set_mode: "+want.err.Error() {
				t.Errorf("json-stream: %+v; want code %s, retryable %v", s.Error, want.streamCode, want.streamRetryable)
			}
		})
	}
	for kind := range kindAnswers {
		if kind.String() != kind.Wire().Name || kind < 0 || int(kind) >= len(sessions.Kinds()) {
			t.Errorf("row for kind %d, which the facade does not list", kind)
		}
	}
}

// checkREST checks a kind's status and body: the error's text (text) or,
// for the daemon's own failures, a ref to its log and none of the text.
func checkREST(t *testing.T, rec *httptest.ResponseRecorder, want kindAnswer, text string) {
	t.Helper()
	if want.httpStatus == 0 {
		if rec.Body.Len() != 0 || len(rec.Header()) != 0 {
			t.Errorf("REST: answered %d %q to a client that left", rec.Code, rec.Body)
		}
		return
	}
	var body struct{ Error, Ref string }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != want.httpStatus {
		t.Fatalf("REST: %d %q (%v); want %d", rec.Code, rec.Body, err, want.httpStatus)
	}
	switch {
	case want.httpRef && (body.Ref == "" || strings.Contains(body.Error, want.err.Error())):
		t.Errorf("REST: %q tells the client the daemon's own error; want a ref to the log", body.Error)
	case !want.httpRef && (body.Ref != "" || !strings.Contains(body.Error, text)):
		t.Errorf("REST: %q does not say %q", body.Error, text)
	}
}

func errorKind(data json.RawMessage) string {
	var m struct {
		ErrorKind string `json:"errorKind"`
	}
	_ = json.Unmarshal(data, &m)
	return m.ErrorKind
}
