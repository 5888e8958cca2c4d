package llm

import (
	"errors"
	"net"
)

// UnreachableError is a model server that could not be reached at all
// (refused, reset, timed out, no such host), said plainly: where, and the
// network's own word for why, rather than the client's chain of wrapped
// errors. Hint is what a person can do about it; it is said once, when
// the failure is final (WithHint), not on each retry.
type UnreachableError struct {
	URL   string
	Cause string
	Hint  string
	Err   *Error // the classified failure: Retryable as it was
}

func (e *UnreachableError) Error() string {
	return "cannot reach the model server at " + e.URL + " (" + e.Cause + ")"
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Unreachable is err as an UnreachableError when it is a failure to reach
// the server at url (no HTTP answer came), else err unchanged.
func Unreachable(err error, url, hint string) error {
	var le *Error
	if !errors.As(err, &le) || le.Type != TypeConnection || le.Status != 0 || errors.Is(err, ErrStreamCut) {
		return err
	}
	cause := "no answer"
	var op *net.OpError
	var ne net.Error
	switch {
	case errors.As(err, &op) && op.Err != nil:
		cause = op.Err.Error()
	case errors.As(err, &ne) && ne.Timeout():
		cause = "timed out"
	case le.Err != nil:
		cause = le.Err.Error()
	}
	return &UnreachableError{URL: url, Cause: cause, Hint: hint, Err: le}
}

// WithHint is err's text followed by the hint it carries, if any: what a
// final failure says.
func WithHint(err error) string {
	var u *UnreachableError
	if errors.As(err, &u) && u.Hint != "" {
		return err.Error() + ": " + u.Hint
	}
	return err.Error()
}
