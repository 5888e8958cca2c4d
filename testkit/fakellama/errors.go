package fakellama

import (
	"encoding/json"
	"net/http"
)

// The real server orders an error's keys two ways (message,type,code for
// 401/404/503; code,message,type for 400/500/501): kept, since clients must
// parse by key and a test of that needs both orders.
type errMTC struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    int    `json:"code"`
}

type errCMT struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Type    string `json:"type"`
}

func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusNotImplemented:
		return "not_supported_error"
	case http.StatusServiceUnavailable:
		return "unavailable_error"
	default:
		return "server_error"
	}
}

func writeError(w http.ResponseWriter, status int, message string) {
	var body any
	switch status {
	case http.StatusUnauthorized, http.StatusNotFound, http.StatusServiceUnavailable:
		body = errMTC{Message: message, Type: errorType(status), Code: status}
	default:
		body = errCMT{Code: status, Message: message, Type: errorType(status)}
	}
	b, _ := json.Marshal(map[string]any{"error": body}) // plain structs always marshal
	w.Header().Set("Connection", "close")
	writeJSONBytes(w, status, b)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encode: "+err.Error())
		return
	}
	writeJSONBytes(w, http.StatusOK, b)
}

func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
