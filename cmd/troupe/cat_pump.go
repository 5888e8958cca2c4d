package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
)

// pumpChunk is how much of stdin goes in one POST .../stdin.
const pumpChunk = 256 << 10

// pumpStdin copies in to session id's ring, chunk by chunk, ending with
// eof. Chunks travel base64-encoded, as Hydra's producer sends them, so
// any bytes go through whole.
func pumpStdin(ctx context.Context, c *catClient, id string, in io.Reader) (int64, error) {
	path := "/v1/sessions/" + id + "/stdin"
	buf := make([]byte, pumpChunk)
	var end int64
	for {
		n, rerr := io.ReadFull(in, buf)
		eof := rerr != nil
		if n > 0 || eof {
			var ans struct {
				WriteCursor int64 `json:"writeCursor"`
			}
			body := map[string]any{"chunk": base64.StdEncoding.EncodeToString(buf[:n]), "eof": eof}
			if err := c.post(ctx, path, body, &ans); err != nil {
				return end, err
			}
			end = ans.WriteCursor
		}
		switch {
		case rerr == nil:
		case errors.Is(rerr, io.EOF), errors.Is(rerr, io.ErrUnexpectedEOF):
			return end, nil
		default:
			return end, fmt.Errorf("read stdin: %w", rerr)
		}
	}
}
