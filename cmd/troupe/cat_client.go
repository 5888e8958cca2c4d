package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// catClient is the daemon as `troupe cat` reaches it: ACP over /acp and
// the stdin ring's REST routes, with the service token.
type catClient struct {
	base, token string
	http        *http.Client
	ws          *websocket.Conn
	frames      chan jsonrpc.Message
	readErr     error // set before frames is closed
	next        int
}

// dialDaemon finds the daemon of home as `troupe session` does
// (daemonclient.Discover: its address file, token and health) and opens
// /acp; its errors are daemonclient's, which describe words alike.
func dialDaemon(ctx context.Context, home string) (*catClient, *daemonclient.Client, error) {
	dc, err := daemonclient.Discover(ctx, daemonclient.Options{Home: home, Token: os.Getenv("TROUPE_TOKEN")})
	if err != nil {
		return nil, nil, err
	}
	ws, err := dc.DialWS(ctx)
	if err != nil {
		return nil, dc, err
	}
	c := &catClient{base: dc.URL, token: dc.Token, http: &http.Client{Timeout: time.Minute}, ws: ws, frames: make(chan jsonrpc.Message, 64)}
	go c.read()
	return c, dc, nil
}

// read is the connection's reader; it ends when the socket closes.
func (c *catClient) read() {
	defer close(c.frames)
	for {
		_, b, err := c.ws.ReadMessage()
		if err != nil {
			c.readErr = err
			return
		}
		var f jsonrpc.Message
		if err := json.Unmarshal(b, &f); err != nil {
			c.readErr = fmt.Errorf("undecodable frame from the daemon: %w", err)
			return
		}
		c.frames <- f
	}
}

func (c *catClient) close() { _ = c.ws.Close() }

// send writes a request and returns its id.
func (c *catClient) send(method string, params any) (int, error) {
	c.next++
	err := c.ws.WriteJSON(jsonrpc.NewRequest(jsonrpc.IntID(int64(c.next)), method, params))
	if err != nil {
		return 0, fmt.Errorf("send %s: %w", method, err)
	}
	return c.next, nil
}

func (c *catClient) respond(id json.RawMessage, result any) error {
	return c.ws.WriteJSON(jsonrpc.NewResult(id, result))
}

// call sends a request and waits for its answer, handing every other
// frame to other (which may be nil).
func (c *catClient) call(method string, params, out any, other func(jsonrpc.Message) error) error {
	id, err := c.send(method, params)
	if err != nil {
		return err
	}
	for f := range c.frames {
		if !f.Answers(id) {
			if other != nil {
				if err := other(f); err != nil {
					return err
				}
			}
			continue
		}
		if f.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, f.Error.Message, f.Error.Code)
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(f.Result, out)
	}
	return fmt.Errorf("%s: connection closed: %w", method, c.readErr)
}

// post sends a REST request with the token and decodes a 200 answer.
func (c *catClient) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer res.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.Unmarshal(rb, &e)
		return fmt.Errorf("POST %s: %d %s", path, res.StatusCode, e.Error)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(rb, out); err != nil {
		return errors.Join(fmt.Errorf("POST %s: decode answer", path), err)
	}
	return nil
}
