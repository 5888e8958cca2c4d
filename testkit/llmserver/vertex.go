package llmserver

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Anthropic models on Google Cloud Vertex AI: POST /v1/projects/{project}/
// locations/{region}/publishers/anthropic/models/{model}:streamRawPredict
// answered with the Anthropic event stream (anthropic.go), the model in the
// path and anthropic_version in the body. Requests must carry a bearer token
// the fake's OAuth token endpoint (POST /token, the token_uri of a service
// account credentials file pointed at the fake) issued.

const (
	vertexPrefix = "/v1/projects/"
	vertexStream = ":streamRawPredict"
	// VertexTokenPath is the fake's OAuth 2.0 token endpoint: put
	// URL()+VertexTokenPath as token_uri in a credentials file.
	VertexTokenPath = "/token"
)

func isVertexPath(path string) bool {
	return strings.HasPrefix(path, vertexPrefix) && strings.HasSuffix(path, vertexStream) &&
		strings.Contains(path, "/publishers/anthropic/models/")
}

// vertexModel splits the path into project, region and model.
func vertexModel(path string) (project, region, model string, ok bool) {
	rest := strings.TrimSuffix(strings.TrimPrefix(path, vertexPrefix), vertexStream)
	parts := strings.Split(rest, "/")
	if len(parts) != 7 || parts[1] != "locations" || parts[3] != "publishers" || parts[4] != "anthropic" || parts[5] != "models" {
		return "", "", "", false
	}
	return parts[0], parts[2], parts[6], parts[0] != "" && parts[2] != "" && parts[6] != ""
}

// vertexPredict answers :streamRawPredict.
func (s *Server) vertexPredict(w http.ResponseWriter, r *http.Request, seq int) answer {
	f := &sseFramer{w: w, rc: http.NewResponseController(w)}
	if !s.tokenIssued(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) {
		f.httpError(APIError{Status: http.StatusUnauthorized, Message: "Request had invalid authentication credentials. Expected OAuth 2 access token."})
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	_, _, model, ok := vertexModel(r.URL.Path)
	if !ok {
		f.httpError(APIError{Status: http.StatusNotFound, Message: "llmserver: want /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict"})
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	body, ok := s.anthropicBody(f, seq, false)
	if !ok {
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	if v, _ := body["anthropic_version"].(string); v == "" {
		f.httpError(APIError{Status: http.StatusBadRequest, Message: "anthropic_version: Field required"})
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	return s.playAnthropic(r.Context(), f, seq, body, model)
}

// googleToken answers the OAuth 2.0 token request a service account makes
// (grant_type jwt-bearer with a signed assertion) with a fresh token.
func (s *Server) googleToken(w http.ResponseWriter, seq int) answer {
	// serveHTTP has read the body already, for the record.
	form, err := url.ParseQuery(string(s.rec.get(seq).Body))
	if err != nil || form.Get("assertion") == "" && form.Get("refresh_token") == "" {
		writeJSON(w, http.StatusBadRequest, []byte(`{"error":"invalid_request","error_description":"llmserver: want an assertion or a refresh_token"}`), false)
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	s.mu.Lock()
	s.tokens++
	token := fmt.Sprintf("ya29.llmserver-%d", s.tokens)
	s.mu.Unlock()
	body, err := marshal(struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		TokenType   string `json:"token_type"`
	}{token, 3599, "Bearer"})
	if err != nil {
		return s.fail(w, APIError{Status: http.StatusInternalServerError, Message: err.Error()})
	}
	return s.writeOK(w, body)
}

// tokenIssued reports whether the token endpoint handed out token.
func (s *Server) tokenIssued(token string) bool {
	var n int
	if _, err := fmt.Sscanf(token, "ya29.llmserver-%d", &n); err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return n >= 1 && n <= s.tokens
}

// WriteVertexCredentials writes a service account credentials file into
// dir whose token_uri is this server's token endpoint, with a fresh RSA key
// to sign the token request and project as its project_id, and returns its
// path: what GOOGLE_APPLICATION_CREDENTIALS names for a Vertex client
// pointed at the fake.
func (s *Server) WriteVertexCredentials(dir, project string) (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", fmt.Errorf("generate key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", fmt.Errorf("encode key: %w", err)
	}
	creds, err := json.MarshalIndent(map[string]string{
		"type":           "service_account",
		"project_id":     project,
		"private_key_id": "llmserver",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "llmserver@" + project + ".iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      s.URL() + VertexTokenPath,
	}, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode credentials: %w", err)
	}
	path := filepath.Join(dir, "vertex-credentials.json")
	if err := os.WriteFile(path, creds, 0o600); err != nil {
		return "", fmt.Errorf("write credentials: %w", err)
	}
	return path, nil
}
