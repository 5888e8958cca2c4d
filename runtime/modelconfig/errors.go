package modelconfig

import "errors"

// Sentinels for callers that map failures to a protocol's error shape.
var (
	// ErrUnknownProvider: the selected provider is neither in models.yml
	// nor built in.
	ErrUnknownProvider = errors.New("unknown provider")
	// ErrIncomplete: something needed is not set anywhere (provider, model,
	// base URL, API key) or is set to something unusable.
	ErrIncomplete = errors.New("incomplete model configuration")
)

// resolveError keeps the user-facing message free of the sentinel's text
// while still matching it with errors.Is.
type resolveError struct {
	kind error
	msg  string
}

func (e *resolveError) Error() string { return e.msg }
func (e *resolveError) Unwrap() error { return e.kind }
