package agentmcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/transports/stdinring"
)

// Bounds on one tool call's answer and wait.
const (
	defaultRead = 16 << 10
	maxRead     = 1 << 20
	defaultWait = 30 * time.Second
	maxWait     = 5 * time.Minute
	maxLine     = 4 << 10 // a grep match's line is cut here
	maxMatches  = 1000
	scanChunk   = 256 << 10
)

// Stdin serves /mcp/hydra-acp-stdin over rings.
func Stdin(tokens Tokens, rings *stdinring.Registry, version string, log *slog.Logger) http.Handler {
	return serve(tokens, log, func(id string) *mcp.Server { return stdinServer(id, rings, version) })
}

type stdinTools struct {
	id    string
	rings *stdinring.Registry
}

func (t stdinTools) ring() (*stdinring.Ring, error) {
	r, err := t.rings.Get(t.id)
	if errors.Is(err, stdinring.ErrNotOpen) {
		return nil, fmt.Errorf("session %s has no stdin stream open", t.id)
	}
	return r, err
}

// ReadOut is what the reading tools answer.
type ReadOut struct {
	Cursor      int64          `json:"cursor" jsonschema:"absolute byte offset of data's first byte"`
	NextCursor  int64          `json:"nextCursor" jsonschema:"offset to pass to the next read"`
	Data        string         `json:"data"`
	Gap         *stdinring.Gap `json:"gap,omitempty" jsonschema:"bytes evicted before cursor, which are lost"`
	EOF         bool           `json:"eof" jsonschema:"the stream ended and nextCursor is its end"`
	WriteCursor int64          `json:"writeCursor" jsonschema:"bytes written to the stream so far"`
}

func readOut(c stdinring.Chunk, r *stdinring.Ring) ReadOut {
	return ReadOut{Cursor: c.Cursor, NextCursor: c.Next, Data: string(c.Data), Gap: c.Gap, EOF: c.EOF, WriteCursor: r.Info().WriteCursor}
}

// HeadIn asks for the start of the stream.
type HeadIn struct {
	Bytes int64 `json:"bytes,omitempty" jsonschema:"at most this many bytes (default 16384, at most 1048576)"`
	Lines int   `json:"lines,omitempty" jsonschema:"at most this many lines"`
}

// ReadIn asks for bytes from a cursor.
type ReadIn struct {
	Cursor   int64 `json:"cursor" jsonschema:"absolute byte offset to read from"`
	MaxBytes int64 `json:"maxBytes,omitempty" jsonschema:"at most this many bytes (default 16384, at most 1048576)"`
}

// GrepIn searches the stream.
type GrepIn struct {
	Pattern    string `json:"pattern" jsonschema:"RE2 regular expression matched against each line"`
	Cursor     int64  `json:"cursor,omitempty" jsonschema:"search from this offset (default: the start)"`
	MaxMatches int    `json:"maxMatches,omitempty" jsonschema:"stop after this many matches (default 100)"`
	IgnoreCase bool   `json:"ignoreCase,omitempty"`
}

// Match is one matching line.
type Match struct {
	Cursor int64  `json:"cursor" jsonschema:"offset of the line's first byte"`
	Line   string `json:"line"`
}

// GrepOut lists the matches in [scannedFrom, scannedTo).
type GrepOut struct {
	Matches     []Match        `json:"matches"`
	ScannedFrom int64          `json:"scannedFrom"`
	ScannedTo   int64          `json:"scannedTo" jsonschema:"pass as cursor to search on"`
	Gap         *stdinring.Gap `json:"gap,omitempty"`
	Truncated   bool           `json:"truncated" jsonschema:"maxMatches was reached before scannedTo was the write cursor"`
}

// WaitIn waits for bytes past a cursor.
type WaitIn struct {
	Cursor    int64 `json:"cursor" jsonschema:"return once the stream is longer than this"`
	TimeoutMs int64 `json:"timeoutMs,omitempty" jsonschema:"give up after this long (default 30000, at most 300000)"`
}

// WaitOut says where the stream is.
type WaitOut struct {
	WriteCursor int64 `json:"writeCursor"`
	EOF         bool  `json:"eof"`
	TimedOut    bool  `json:"timedOut"`
}

// InfoIn takes nothing.
type InfoIn struct{}

func stdinServer(id string, rings *stdinring.Registry, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: StdinServer, Version: version}, nil)
	t := stdinTools{id: id, rings: rings}
	mcp.AddTool(s, &mcp.Tool{Name: "info", Description: "The piped stdin stream's state: mode, capacity, oldest kept offset, write cursor, evicted bytes, eof."}, t.info)
	mcp.AddTool(s, &mcp.Tool{Name: "head", Description: "The first bytes (or lines) of the piped stdin stream; evicted bytes are reported as a gap."}, t.head)
	mcp.AddTool(s, &mcp.Tool{Name: "tail", Description: "The last bytes (or lines) written to the piped stdin stream."}, t.tail)
	mcp.AddTool(s, &mcp.Tool{Name: "read", Description: "Read the piped stdin stream from an absolute byte cursor; pass nextCursor to the next read. Bytes evicted before the cursor are skipped and reported as a gap."}, t.read)
	mcp.AddTool(s, &mcp.Tool{Name: "grep", Description: "Lines of the piped stdin stream matching a regular expression, with their byte cursors."}, t.grep)
	mcp.AddTool(s, &mcp.Tool{Name: "wait_for_more", Description: "Wait until the piped stdin stream grows past cursor or ends, or the timeout passes."}, t.waitForMore)
	return s
}

func (t stdinTools) info(_ context.Context, _ *mcp.CallToolRequest, _ InfoIn) (*mcp.CallToolResult, stdinring.Info, error) {
	r, err := t.ring()
	if err != nil {
		return nil, stdinring.Info{}, err
	}
	return nil, r.Info(), nil
}

func readBound(n int64) int64 {
	if n <= 0 {
		return defaultRead
	}
	return min(n, maxRead)
}

func (t stdinTools) head(_ context.Context, _ *mcp.CallToolRequest, in HeadIn) (*mcp.CallToolResult, ReadOut, error) {
	r, err := t.ring()
	if err != nil {
		return nil, ReadOut{}, err
	}
	c, err := r.Read(0, readBound(in.Bytes))
	if err != nil {
		return nil, ReadOut{}, err
	}
	if in.Lines > 0 {
		if keep := firstLines(c.Data, in.Lines); len(keep) < len(c.Data) {
			c.Data, c.Next, c.EOF = keep, c.Cursor+int64(len(keep)), false
		}
	}
	return nil, readOut(c, r), nil
}

func (t stdinTools) tail(_ context.Context, _ *mcp.CallToolRequest, in HeadIn) (*mcp.CallToolResult, ReadOut, error) {
	r, err := t.ring()
	if err != nil {
		return nil, ReadOut{}, err
	}
	n := readBound(in.Bytes)
	info := r.Info()
	from := max(info.WriteCursor-n, 0)
	c, err := r.Read(from, n)
	if err != nil {
		return nil, ReadOut{}, err
	}
	c.Gap = nil // the tail asked for the end, not for from
	if in.Lines > 0 {
		keep := lastLines(c.Data, in.Lines)
		c.Cursor += int64(len(c.Data) - len(keep))
		c.Data = keep
	}
	return nil, readOut(c, r), nil
}

func (t stdinTools) read(_ context.Context, _ *mcp.CallToolRequest, in ReadIn) (*mcp.CallToolResult, ReadOut, error) {
	r, err := t.ring()
	if err != nil {
		return nil, ReadOut{}, err
	}
	if in.Cursor < 0 {
		return nil, ReadOut{}, errors.New("cursor must not be negative")
	}
	c, err := r.Read(in.Cursor, readBound(in.MaxBytes))
	if err != nil {
		return nil, ReadOut{}, err
	}
	return nil, readOut(c, r), nil
}

func (t stdinTools) waitForMore(ctx context.Context, _ *mcp.CallToolRequest, in WaitIn) (*mcp.CallToolResult, WaitOut, error) {
	r, err := t.ring()
	if err != nil {
		return nil, WaitOut{}, err
	}
	d := defaultWait
	if in.TimeoutMs > 0 {
		d = min(time.Duration(in.TimeoutMs)*time.Millisecond, maxWait)
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	end, eof, err := r.Wait(wctx, in.Cursor)
	if err != nil && ctx.Err() != nil {
		return nil, WaitOut{}, fmt.Errorf("wait cancelled: %w", ctx.Err())
	}
	return nil, WaitOut{WriteCursor: end, EOF: eof, TimedOut: err != nil}, nil
}

func (t stdinTools) grep(_ context.Context, _ *mcp.CallToolRequest, in GrepIn) (*mcp.CallToolResult, GrepOut, error) {
	r, err := t.ring()
	if err != nil {
		return nil, GrepOut{}, err
	}
	if in.Pattern == "" {
		return nil, GrepOut{}, errors.New("pattern is required")
	}
	pat := in.Pattern
	if in.IgnoreCase {
		pat = "(?i)" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, GrepOut{}, fmt.Errorf("invalid pattern: %w", err)
	}
	limit := in.MaxMatches
	if limit <= 0 {
		limit = 100
	}
	out, err := scan(r, re, max(in.Cursor, 0), min(limit, maxMatches))
	return nil, out, err
}

// scan greps [from, the write cursor now) chunk by chunk; a line split
// across chunks is carried over (up to maxRead bytes).
func scan(r *stdinring.Ring, re *regexp.Regexp, from int64, limit int) (GrepOut, error) {
	end := r.Info().WriteCursor
	out := GrepOut{Matches: []Match{}, ScannedFrom: from, ScannedTo: from}
	var carry []byte
	lineAt := from
	cur := from
	for cur < end {
		c, err := r.Read(cur, min(scanChunk, end-cur))
		if err != nil {
			return out, err
		}
		if c.Gap != nil {
			if out.Gap == nil {
				out.Gap = c.Gap
			} else {
				out.Gap.To, out.Gap.Bytes = c.Gap.To, c.Gap.To-out.Gap.From
			}
			carry, lineAt = nil, c.Cursor
		}
		if len(c.Data) == 0 {
			break
		}
		data := append(carry, c.Data...)
		for {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				break
			}
			if matchLine(re, data[:i], lineAt, &out) && len(out.Matches) >= limit {
				out.ScannedTo, out.Truncated = lineAt+int64(i)+1, true
				return out, nil
			}
			lineAt += int64(i) + 1
			data = data[i+1:]
		}
		carry = append([]byte(nil), data...)
		if len(carry) > maxRead {
			lineAt += int64(len(carry))
			carry = nil
		}
		cur = c.Next
	}
	out.ScannedTo = cur
	if len(carry) > 0 && r.Info().EOF && cur == end {
		// The last line has no newline; it is complete only at eof.
		matchLine(re, carry, lineAt, &out)
	} else {
		out.ScannedTo = lineAt
	}
	return out, nil
}

func matchLine(re *regexp.Regexp, line []byte, at int64, out *GrepOut) bool {
	if !re.Match(line) {
		return false
	}
	if len(line) > maxLine {
		line = line[:maxLine]
	}
	out.Matches = append(out.Matches, Match{Cursor: at, Line: string(bytes.ToValidUTF8(line, []byte("\uFFFD")))})
	return true
}

func firstLines(b []byte, n int) []byte {
	at := 0
	for range n {
		i := bytes.IndexByte(b[at:], '\n')
		if i < 0 {
			return b
		}
		at += i + 1
	}
	return b[:at]
}

func lastLines(b []byte, n int) []byte {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for range n {
		i := bytes.LastIndexByte(b[:end], '\n')
		if i < 0 {
			return b
		}
		end = i
	}
	return b[end+1:]
}
