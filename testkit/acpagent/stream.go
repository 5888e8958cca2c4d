package acpagent

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// lockedWriter is the agent's stdout: the SDK's connection writes each of
// its messages in one Write, and stream writes its runs of frames here
// too, so the two never interleave inside a line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// streamBlock bounds the bytes of frames written at once.
const streamBlock = 64 << 10

// stream sends n agent_message_chunks of text as the SDK would send them,
// encoded once and written in blocks: the agent is then fast enough
// (one write per block, not per chunk) that a benchmark measures what is
// between it and the client rather than the agent itself.
func (r *runner) stream(n int, text string) error {
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update",
		"params": acp.SessionNotification{SessionId: acp.SessionId(r.s.ID), Update: acp.UpdateAgentMessageText(text)}})
	if err != nil {
		return err
	}
	frame = append(frame, '\n')
	per := max(1, streamBlock/len(frame))
	block := bytes.Repeat(frame, min(per, n))
	for n > 0 && r.ctx.Err() == nil {
		k := min(per, n)
		if _, err := r.a.out.Write(block[:k*len(frame)]); err != nil {
			return err
		}
		for range k {
			r.reply.WriteString(text)
		}
		n -= k
	}
	return nil
}
