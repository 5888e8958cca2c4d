package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/troupehq/troupe/runtime/llm"
)

// errorKinds is every error type this package knows, from the
// first-party API and from Bedrock (whose exception names arrive as
// the type), lower-cased, each with whether a retry may help and the HTTP
// status it stands for when it arrives inside a stream.
var errorKinds = map[string]struct {
	retryable bool
	status    int
}{
	"overloaded_error":            {true, 529},
	"rate_limit_error":            {true, http.StatusTooManyRequests},
	"api_error":                   {true, http.StatusInternalServerError},
	"timeout_error":               {true, http.StatusGatewayTimeout},
	"invalid_request_error":       {false, http.StatusBadRequest},
	"authentication_error":        {false, http.StatusUnauthorized},
	"billing_error":               {false, http.StatusPaymentRequired},
	"permission_error":            {false, http.StatusForbidden},
	"not_found_error":             {false, http.StatusNotFound},
	"request_too_large":           {false, http.StatusRequestEntityTooLarge},
	"throttlingexception":         {true, http.StatusTooManyRequests},
	"serviceunavailableexception": {true, http.StatusServiceUnavailable},
	"internalserverexception":     {true, http.StatusInternalServerError},
	"modelstreamerrorexception":   {true, http.StatusFailedDependency},
	"modelnotreadyexception":      {true, http.StatusTooManyRequests},
	"modeltimeoutexception":       {true, http.StatusRequestTimeout},
	"validationexception":         {false, http.StatusBadRequest},
	"accessdeniedexception":       {false, http.StatusForbidden},
	"resourcenotfoundexception":   {false, http.StatusNotFound},
	"modelerrorexception":         {false, http.StatusFailedDependency},
}

// errCut is the reply that ended without message_stop.
func errCut(cause error) *llm.Error {
	err := llm.ErrStreamCut
	if cause != nil {
		err = fmt.Errorf("%w: %w", llm.ErrStreamCut, cause)
	}
	return &llm.Error{Type: llm.TypeStreamCut, Retryable: true, Err: err}
}

// classify turns whatever the SDK returned into an *llm.Error. started
// says events had arrived, so a broken connection cut a reply short.
func classify(err error, started bool) *llm.Error {
	var aerr *sdk.Error
	if errors.As(err, &aerr) {
		return apiError(aerr)
	}
	var le *llm.Error
	if errors.As(err, &le) {
		return le
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return &llm.Error{Type: llm.TypeInvalidResponse, Message: "undecodable event", Err: err}
	}
	if started {
		return errCut(err)
	}
	return llm.NetworkError(err)
}

// apiError classifies an error answer or an error event. An error event
// comes inside a 200 stream: its type names the status it stands for, and
// one of a type unknown here is worth a retry, since the request had been
// accepted.
func apiError(aerr *sdk.Error) *llm.Error {
	typ, msg := errorText(aerr)
	kind, known := errorKinds[strings.ToLower(typ)]
	status := aerr.StatusCode
	midStream := status == http.StatusOK
	if midStream {
		status = kind.status
	}
	e := llm.HTTPError(status, typ, msg)
	switch {
	case e.ContextOverflow:
		e.Retryable = false
	case known:
		e.Retryable = kind.retryable
	case midStream:
		e.Retryable = true
	}
	if aerr.Response != nil && !midStream {
		e.RetryAfter = llm.ParseRetryAfter(aerr.Response.Header.Get("Retry-After"), time.Now())
	}
	return e
}

// errorText is the error's type and message: the API's
// {"error":{"type","message"}}, or Bedrock's {"message"} with the type in
// the x-amzn-ErrorType header.
func errorText(aerr *sdk.Error) (typ, msg string) {
	typ, msg = string(aerr.Type()), aerr.Message
	if msg == "" {
		var body struct {
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(aerr.RawJSON()), &body) == nil {
			msg = body.Message
		}
	}
	if typ == "" && aerr.Response != nil {
		typ, _, _ = strings.Cut(aerr.Response.Header.Get("X-Amzn-Errortype"), ":")
	}
	if msg == "" {
		msg = strings.TrimSpace(aerr.RawJSON())
	}
	if msg == "" && aerr.StatusCode != 0 {
		msg = strings.ToLower(http.StatusText(aerr.StatusCode))
	}
	return typ, msg
}
