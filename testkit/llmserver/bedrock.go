package llmserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// Anthropic models on Amazon Bedrock: POST /model/{modelId}/invoke-with-
// response-stream answered with application/vnd.amazon.eventstream frames,
// each a "chunk" event whose payload is {"bytes": base64 of one Anthropic
// event's JSON}. Errors are Bedrock's own: an HTTP status with
// {"message":...} and the x-amzn-ErrorType header, or mid-stream an
// exception frame. The request must be SigV4-signed; the fake has no secret
// to check the signature against, so it checks the Authorization header's
// form.

const (
	bedrockPrefix = "/model/"
	bedrockStream = "/invoke-with-response-stream"
)

func isBedrockPath(path string) bool {
	return strings.HasPrefix(path, bedrockPrefix) && strings.HasSuffix(path, bedrockStream)
}

// bedrockInvoke answers POST /model/{modelId}/invoke-with-response-stream.
func (s *Server) bedrockInvoke(w http.ResponseWriter, r *http.Request, seq int) answer {
	f := &bedrockFramer{w: w, rc: http.NewResponseController(w), enc: eventstream.NewEncoder()}
	if !sigV4Signed(r) {
		f.httpError(APIError{Status: http.StatusForbidden, Type: "MissingAuthenticationTokenException", Message: "Missing Authentication Token"})
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	model := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, bedrockPrefix), bedrockStream)
	body, ok := s.anthropicBody(f, seq, false)
	if !ok {
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	if v, _ := body["anthropic_version"].(string); v == "" {
		f.httpError(APIError{Status: http.StatusBadRequest, Message: "Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again."})
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	return s.playAnthropic(r.Context(), f, seq, body, model)
}

// sigV4Signed checks the form of an AWS Signature Version 4 header.
func sigV4Signed(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	return strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") &&
		strings.Contains(auth, "Credential=") &&
		strings.Contains(auth, "/bedrock/aws4_request") &&
		strings.Contains(auth, "SignedHeaders=") &&
		strings.Contains(auth, "Signature=") &&
		r.Header.Get("X-Amz-Date") != ""
}

type bedrockFramer struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	enc *eventstream.Encoder
}

func (f *bedrockFramer) begin() error {
	h := f.w.Header()
	h.Set("Content-Type", "application/vnd.amazon.eventstream")
	h.Set("X-Amzn-Bedrock-Content-Type", "application/json")
	h.Set("X-Amzn-Requestid", "6c6c6d73-6572-4000-8000-000000000000")
	f.w.WriteHeader(http.StatusOK)
	return nil
}

type bedrockChunk struct {
	Bytes string `json:"bytes"`
}

func (f *bedrockFramer) event(_ string, data []byte) error {
	payload, err := json.Marshal(bedrockChunk{Bytes: base64.StdEncoding.EncodeToString(data)})
	if err != nil {
		return fmt.Errorf("encode chunk: %w", err)
	}
	var hs eventstream.Headers
	hs.Set(":event-type", eventstream.StringValue("chunk"))
	hs.Set(":content-type", eventstream.StringValue("application/json"))
	hs.Set(":message-type", eventstream.StringValue("event"))
	return f.frame(eventstream.Message{Headers: hs, Payload: payload})
}

func (f *bedrockFramer) frame(m eventstream.Message) error {
	if err := f.enc.Encode(f.w, m); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	if err := f.rc.Flush(); err != nil {
		return fmt.Errorf("flush stream: %w", err)
	}
	return nil
}

// streamError sends an exception frame, as Bedrock does when the model
// fails after the stream began.
func (f *bedrockFramer) streamError(e APIError) error {
	payload, err := json.Marshal(struct {
		Message string `json:"message"`
	}{e.message()})
	if err != nil {
		return fmt.Errorf("encode exception: %w", err)
	}
	var hs eventstream.Headers
	hs.Set(":exception-type", eventstream.StringValue(bedrockStreamErrorType(e)))
	hs.Set(":content-type", eventstream.StringValue("application/json"))
	hs.Set(":message-type", eventstream.StringValue("exception"))
	return f.frame(eventstream.Message{Headers: hs, Payload: payload})
}

func (f *bedrockFramer) httpError(e APIError) {
	h := f.w.Header()
	for k, v := range e.Header {
		h.Set(k, v)
	}
	body, err := json.Marshal(struct {
		Message string `json:"message"`
	}{e.message()})
	if err != nil {
		body = []byte(`{"message":"llmserver"}`)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	h.Set("X-Amzn-Errortype", bedrockErrorType(e)+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	f.w.WriteHeader(e.code())
	_, _ = f.w.Write(body) // a client that left cannot be told anything
}

func (f *bedrockFramer) cut() Outcome { return hijackClose(f.rc) }

// pings: Bedrock does not pass the API's pings on.
func (f *bedrockFramer) pings() bool { return false }

// bedrockErrorType is the exception Bedrock names for an HTTP error.
func bedrockErrorType(e APIError) string {
	if e.Type != "" {
		return e.Type
	}
	switch code := e.code(); code {
	case 400:
		return "ValidationException"
	case 403:
		return "AccessDeniedException"
	case 404:
		return "ResourceNotFoundException"
	case 408:
		return "ModelTimeoutException"
	case 424:
		return "ModelErrorException"
	case 429:
		return "ThrottlingException"
	case 503, 529:
		return "ServiceUnavailableException"
	default:
		if code < 500 {
			return "ValidationException"
		}
		return "InternalServerException"
	}
}

// bedrockStreamErrorType is the exception frame's type: the event names of
// the InvokeModelWithResponseStream output, lower camel case.
func bedrockStreamErrorType(e APIError) string {
	t := bedrockErrorType(e)
	if e.Type == "" && e.code() == 424 {
		t = "ModelStreamErrorException"
	}
	return strings.ToLower(t[:1]) + t[1:]
}
