package mcp

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressCalls routes notifications/progress to the call whose token it
// carries. Each call's progress is cumulative text, one line per
// notification, as tool.progress records it.
type progressCalls struct {
	mu    sync.Mutex
	next  uint64
	calls map[string]*progressCall
}

type progressCall struct {
	report func(string)
	lines  strings.Builder
}

// add registers a call; done forgets it.
func (p *progressCalls) add(report func(string)) (token string, done func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls == nil {
		p.calls = map[string]*progressCall{}
	}
	p.next++
	token = "troupe-" + strconv.FormatUint(p.next, 10)
	p.calls[token] = &progressCall{report: report}
	return token, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.calls, token)
	}
}

// notify runs on the SDK's goroutine; report only sends a message, so it
// is called under the lock to keep each call's lines in order.
func (p *progressCalls) notify(n *sdk.ProgressNotificationParams) {
	if n == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.calls[fmt.Sprint(n.ProgressToken)]
	if c == nil {
		return // a finished call's late notification, or not ours
	}
	if c.lines.Len() > 0 {
		c.lines.WriteByte('\n')
	}
	c.lines.WriteString(progressLine(n))
	c.report(c.lines.String())
}

// progressLine is "[progress/total] message", the total and the message
// when given.
func progressLine(n *sdk.ProgressNotificationParams) string {
	num := strconv.FormatFloat(n.Progress, 'f', -1, 64)
	if n.Total > 0 {
		num += "/" + strconv.FormatFloat(n.Total, 'f', -1, 64)
	}
	if n.Message == "" {
		return "[" + num + "]"
	}
	return "[" + num + "] " + n.Message
}
