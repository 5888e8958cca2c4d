package mcp

import (
	"context"
	"fmt"
	"io"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport hands the SDK one lineConn.
type lineTransport struct{ conn *lineConn }

func (t lineTransport) Connect(context.Context) (sdk.Connection, error) { return t.conn, nil }

// ServeStdio serves one MCP session on in and out, one JSON-RPC message a
// line, until in ends (the calls under way are answered first) or ctx
// does (they are cut: Close ends them).
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, maxLine int) error {
	conn := newLineConn(in, out, maxLine)
	ss, err := s.sdk.Connect(ctx, lineTransport{conn}, nil)
	if err != nil {
		return fmt.Errorf("start mcp session: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ended:
	case <-ctx.Done():
		s.Close()
		_ = ss.Close()
		<-ended
	}
	return nil
}
