package llmserver

import (
	"fmt"
	"net/http"
)

func (s *Server) writeInfo(w http.ResponseWriter, body []byte, err error) answer {
	if err != nil {
		return s.fail(w, APIError{Status: http.StatusInternalServerError, Message: err.Error()})
	}
	return s.writeOK(w, body)
}

func (s *Server) writeOK(w http.ResponseWriter, body []byte) answer {
	writeJSON(w, http.StatusOK, body, false)
	return answer{outcome: OutcomeOK, reply: NoReply}
}

// fail answers with an error; it is the path for every HTTP error, scripted
// or the server's own.
func (s *Server) fail(w http.ResponseWriter, e APIError) answer {
	s.writeError(w, e)
	return answer{outcome: OutcomeHTTPError, reply: NoReply}
}

func (s *Server) writeError(w http.ResponseWriter, e APIError) {
	body, err := e.body(true)
	if err != nil {
		// Only a script's bad extra can get here, and compile rejects those.
		body, _ = APIError{Status: http.StatusInternalServerError, Message: err.Error()}.body(true)
	}
	for k, v := range e.Header {
		w.Header().Set(k, v)
	}
	writeJSON(w, e.code(), body, true)
}

// writeJSON sets llama-server's headers. It closes the connection after
// errors because llama-server does, and clients must cope with that.
func writeJSON(w http.ResponseWriter, status int, body []byte, closeConn bool) {
	h := w.Header()
	setServerHeaders(h)
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if closeConn {
		h.Set("Connection", "close")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body) // a client that left cannot be told anything
}

func setServerHeaders(h http.Header) {
	h.Set("Server", "llama.cpp")
	// llama-server sends this header empty when the request has no Origin.
	h["Access-Control-Allow-Origin"] = []string{""}
}
