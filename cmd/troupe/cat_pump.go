package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// pumpChunk is how much of stdin goes in one POST .../stdin.
const pumpChunk = 256 << 10

// pumpStdin copies in to session id's ring, chunk by chunk, ending with
// eof. Chunks end on UTF-8 boundaries, since they travel as JSON strings:
// cutting a character in two would turn both halves into U+FFFD.
func pumpStdin(ctx context.Context, c *catClient, id string, in io.Reader) (int64, error) {
	path := "/v1/sessions/" + id + "/stdin"
	buf := make([]byte, pumpChunk)
	held := 0 // bytes at buf's start carried from the last read
	var end int64
	for {
		n, rerr := io.ReadFull(in, buf[held:])
		n += held
		cut := n
		if rerr == nil {
			cut = runeCut(buf[:n])
		}
		if cut > 0 || rerr != nil {
			var ans struct {
				WriteCursor int64 `json:"writeCursor"`
			}
			eof := rerr != nil
			if err := c.post(ctx, path, map[string]any{"chunk": string(buf[:cut]), "eof": eof}, &ans); err != nil {
				return end, err
			}
			end = ans.WriteCursor
		}
		held = copy(buf, buf[cut:n])
		switch {
		case rerr == nil:
		case errors.Is(rerr, io.EOF), errors.Is(rerr, io.ErrUnexpectedEOF):
			return end, nil
		default:
			return end, fmt.Errorf("read stdin: %w", rerr)
		}
	}
}

// runeCut is where b ends without cutting a character: before a trailing
// incomplete one.
func runeCut(b []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if utf8.FullRune(b[len(b)-i:]) {
				return len(b)
			}
			return len(b) - i
		}
	}
	return len(b)
}
