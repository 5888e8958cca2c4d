package llmserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

func (e APIError) code() int {
	if e.Status == 0 {
		return http.StatusInternalServerError
	}
	return e.Status
}

func (e APIError) message() string {
	if e.Message != "" {
		return e.Message
	}
	return http.StatusText(e.code())
}

func (e APIError) errorType() string {
	if e.Type != "" {
		return e.Type
	}
	switch code := e.code(); code {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 429:
		return "rate_limit_error"
	case 501:
		return "not_supported_error"
	case 503:
		return "unavailable_error"
	default:
		if code < 500 {
			return "invalid_request_error"
		}
		return "server_error"
	}
}

// body renders {"error":{...}}. llama-server's HTTP middleware (401, 404,
// 503) writes message, type, code, while its handlers and stream errors
// write code, message, type; httpOrder picks the former for those statuses.
func (e APIError) body(httpOrder bool) ([]byte, error) {
	code, err := marshal(e.code())
	if err != nil {
		return nil, err
	}
	msg, err := marshal(e.message())
	if err != nil {
		return nil, err
	}
	typ, err := marshal(e.errorType())
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"error":{`)
	switch c := e.code(); {
	case httpOrder && (c == 401 || c == 404 || c == 503):
		fmt.Fprintf(&b, `"message":%s,"type":%s,"code":%s`, msg, typ, code)
	default:
		fmt.Fprintf(&b, `"code":%s,"message":%s,"type":%s`, code, msg, typ)
	}
	extra, err := extraMembers(e.Extra)
	if err != nil {
		return nil, err
	}
	if len(extra) > 0 {
		b.WriteByte(',')
		b.Write(extra)
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

// extraMembers returns the members of a JSON object without its braces.
func extraMembers(raw json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("error extra: %w", err)
	}
	compact := buf.Bytes()
	if len(compact) < 2 || compact[0] != '{' {
		return nil, fmt.Errorf("error extra must be a JSON object, got %s", raw)
	}
	return compact[1 : len(compact)-1], nil
}
