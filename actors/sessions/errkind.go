package sessions

import (
	"context"
	"errors"
	"net/http"
)

// Kind is a class of facade error: what a client can do about it, which
// every protocol answers the same way. [KindOf] classifies an error; the
// one table below gives each kind's answer on every protocol, so a
// transport turns a Kind into its wire shape in one place and no two
// protocols disagree on what an error is.
type Kind int

const (
	// KindInternal: an error the facade does not name (a store's SQL, a
	// bug). The zero Kind, so an unclassified error is internal.
	KindInternal Kind = iota
	// KindNotFound: ErrNotFound.
	KindNotFound
	// KindInvalid: a request the session refuses as malformed or out of
	// bounds (ErrAttentionLimit).
	KindInvalid
	// KindExists: ErrExists.
	KindExists
	// KindHasForks: ErrHasForks.
	KindHasForks
	// KindHeld: *LeaseHeldError, the session runs in another process.
	KindHeld
	// KindBusy: ErrBusy.
	KindBusy
	// KindNoRun: ErrNoRun.
	KindNoRun
	// KindNoEngine: ErrNoEngine.
	KindNoEngine
	// KindFailed: ErrFailed.
	KindFailed
	// KindDiskFull: ErrDiskFull.
	KindDiskFull
	// KindStoreWrite: ErrStoreWrite other than ErrDiskFull.
	KindStoreWrite
	// KindUnreachable: *UnreachableError with no more specific cause.
	KindUnreachable
	// KindCancelled: the request's context was cancelled (the client left).
	KindCancelled

	kindCount // not a kind: the number of kinds, for tests to enumerate
)

// Kinds returns every kind, in order.
func Kinds() []Kind {
	out := make([]Kind, 0, kindCount)
	for k := range kindCount {
		out = append(out, k)
	}
	return out
}

// Wire is a kind's answer on each protocol.
//
// pi's RPC mode has one failure shape for every kind,
// {"type":"response","success":false,"error":<text>}, with no code, so it
// has no column: its text is the error's.
type Wire struct {
	// Name is the kind's stable name: ACP's data.errorKind where ACPData,
	// and the name logs and tests use.
	Name string
	// ACPCode is the JSON-RPC error code over ACP (the Hydra protocol's
	// table of codes; -32603 where it has none for the kind).
	ACPCode int
	// ACPData: ACP's error carries data.errorKind = Name, so a client
	// tells kinds apart that share a code.
	ACPData bool
	// HTTPStatus is REST's status; 0 means no answer is written (the
	// client left).
	HTTPStatus int
	// HTTPText: REST's body says the error's text. Otherwise the text is
	// for the daemon's log only, and the body carries a ref to find it
	// there (a store's SQL, a path, a crash's reason are not the client's).
	HTTPText bool
	// JSONStream is the aionrs json-stream error code
	// (provider_error, tool_error, config_error, protocol_error,
	// internal_error).
	JSONStream string
	// Retryable: the same request may succeed if tried again unchanged
	// (json-stream's error.retryable).
	Retryable bool
}

// The JSON-RPC codes the table uses (transports/acp declares the same;
// the kinds test checks they agree).
const (
	acpInvalidParams   = -32602
	acpInternal        = -32603
	acpSessionNotFound = -32001
)

// wires is the one table: every kind's answer on every protocol.
var wires = [kindCount]Wire{
	KindInternal:    {Name: "internal", ACPCode: acpInternal, HTTPStatus: http.StatusInternalServerError, JSONStream: "internal_error"},
	KindNotFound:    {Name: "not_found", ACPCode: acpSessionNotFound, HTTPStatus: http.StatusNotFound, HTTPText: true, JSONStream: "internal_error"},
	KindInvalid:     {Name: "invalid_params", ACPCode: acpInvalidParams, HTTPStatus: http.StatusBadRequest, HTTPText: true, JSONStream: "protocol_error"},
	KindExists:      {Name: "exists", ACPCode: acpInternal, HTTPStatus: http.StatusConflict, HTTPText: true, JSONStream: "internal_error"},
	KindHasForks:    {Name: "has_forks", ACPCode: acpInvalidParams, HTTPStatus: http.StatusConflict, HTTPText: true, JSONStream: "internal_error"},
	KindHeld:        {Name: "session_held", ACPCode: acpInternal, ACPData: true, HTTPStatus: http.StatusConflict, HTTPText: true, JSONStream: "internal_error", Retryable: true},
	KindBusy:        {Name: "busy", ACPCode: acpInternal, HTTPStatus: http.StatusConflict, HTTPText: true, JSONStream: "internal_error", Retryable: true},
	KindNoRun:       {Name: "no_run", ACPCode: acpInternal, HTTPStatus: http.StatusConflict, HTTPText: true, JSONStream: "internal_error"},
	KindNoEngine:    {Name: "no_engine", ACPCode: acpInternal, HTTPStatus: http.StatusServiceUnavailable, HTTPText: true, JSONStream: "config_error"},
	KindFailed:      {Name: "session_failed", ACPCode: acpInternal, HTTPStatus: http.StatusInternalServerError, JSONStream: "internal_error"},
	KindDiskFull:    {Name: "disk_full", ACPCode: acpInternal, ACPData: true, HTTPStatus: http.StatusInsufficientStorage, HTTPText: true, JSONStream: "internal_error"},
	KindStoreWrite:  {Name: "store_write", ACPCode: acpInternal, ACPData: true, HTTPStatus: http.StatusServiceUnavailable, HTTPText: true, JSONStream: "internal_error"},
	KindUnreachable: {Name: "unreachable", ACPCode: acpInternal, HTTPStatus: http.StatusInternalServerError, JSONStream: "internal_error", Retryable: true},
	KindCancelled:   {Name: "cancelled", ACPCode: acpInternal, JSONStream: "internal_error"},
}

// Wire returns k's answer on every protocol; an unknown k answers as
// KindInternal.
func (k Kind) Wire() Wire {
	if k < 0 || k >= kindCount {
		return wires[KindInternal]
	}
	return wires[k]
}

func (k Kind) String() string { return k.Wire().Name }

// KindOf classifies err by its most specific cause: a refusal wrapped in
// an *UnreachableError (a session that could not start because another
// process holds it, or its store refused the write) is that refusal's
// kind. A nil err is KindInternal; callers classify errors, not successes.
func KindOf(err error) Kind {
	var held *LeaseHeldError
	var unreachable *UnreachableError
	switch {
	case errors.Is(err, ErrNotFound):
		return KindNotFound
	case errors.As(err, &held):
		return KindHeld
	case errors.Is(err, ErrHasForks):
		return KindHasForks
	case errors.Is(err, ErrAttentionLimit):
		return KindInvalid
	case errors.Is(err, ErrExists):
		return KindExists
	case errors.Is(err, ErrBusy):
		return KindBusy
	case errors.Is(err, ErrNoRun):
		return KindNoRun
	case errors.Is(err, ErrNoEngine):
		return KindNoEngine
	case errors.Is(err, ErrFailed):
		return KindFailed
	case errors.Is(err, ErrDiskFull):
		return KindDiskFull
	case errors.Is(err, ErrStoreWrite):
		return KindStoreWrite
	case errors.Is(err, context.Canceled):
		return KindCancelled
	case errors.As(err, &unreachable):
		return KindUnreachable
	}
	return KindInternal
}
