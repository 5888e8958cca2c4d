package agentmcp

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/transports/httpjson"
)

type sessionKey struct{}

// sessionOf is the calling session, put in the request's context by serve.
func sessionOf(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}

// serve is one MCP server's route: the capability token is checked on
// every request and build makes the calling session's server. Stateless:
// no MCP session outlives its request, so a daemon restart loses nothing
// and thousands of sessions hold no standing streams.
func serve(tokens Tokens, log *slog.Logger, build func(sessionID string) *mcp.Server) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		return build(sessionOf(r.Context()))
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: log})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		id, valid := tokens.Check(strings.TrimSpace(token))
		if !ok || !valid {
			w.Header().Set("WWW-Authenticate", "Bearer")
			httpjson.Error(w, http.StatusUnauthorized, "missing or invalid session capability token")
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, id)))
	})
}
