package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// batchVersion is the one protocol version with JSON-RPC batches: 2025-06-18
// removed them.
const batchVersion = "2025-03-26"

// batch gathers the answers to one batch line's requests, written as one
// array line in the requests' order once all are in.
type batch struct {
	order []string          // id keys, in the batch's order
	got   map[string][]byte // encoded answers by id key
}

// decodeBatch reads a batch line into its messages, or answers the error
// it gets instead: batches only once 2025-03-26 is negotiated, not empty,
// every member a message, no id twice.
func (c *lineConn) decodeBatch(line []byte) ([]jsonrpc.Message, bool) {
	c.bmu.Lock()
	version := c.version
	c.bmu.Unlock()
	if version != batchVersion {
		c.reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are only in protocol version "+batchVersion+"; send one message a line")
		return nil, false
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
		c.reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: a batch is a non-empty array of messages")
		return nil, false
	}
	b := &batch{got: map[string][]byte{}}
	msgs := make([]jsonrpc.Message, 0, len(raws))
	for i, raw := range raws {
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: batch member %d: %v", i, err))
			return nil, false
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
			key := idKey(req.ID)
			if _, dup := b.got[key]; dup {
				c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: id %v twice in a batch", req.ID.Raw()))
				return nil, false
			}
			b.got[key] = nil
			b.order = append(b.order, key)
		}
		msgs = append(msgs, m)
	}
	if len(b.order) > 0 {
		c.bmu.Lock()
		for _, key := range b.order {
			c.batches[key] = b
		}
		c.bmu.Unlock()
	}
	return msgs, true
}

// answered files the encoded answer to id when it belongs to a batch: it
// returns the batch's array line once every answer is in (and done), or
// nothing to write yet. An answer to no batch is not held (held false).
func (c *lineConn) answered(id jsonrpc.ID, enc []byte) (line []byte, held bool) {
	key := idKey(id)
	c.bmu.Lock()
	defer c.bmu.Unlock()
	b := c.batches[key]
	if b == nil {
		return nil, false
	}
	b.got[key] = enc
	for _, k := range b.order {
		if b.got[k] == nil {
			return nil, true
		}
	}
	for _, k := range b.order {
		delete(c.batches, k)
	}
	parts := make([][]byte, len(b.order))
	for i, k := range b.order {
		parts[i] = b.got[k]
	}
	return append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']'), true
}

// negotiated notes the version an initialize answer carries, which says
// whether batches are allowed.
func (c *lineConn) negotiated(resp *jsonrpc.Response) {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	if c.initID == "" || idKey(resp.ID) != c.initID {
		return
	}
	c.initID = ""
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &r) == nil {
		c.version = r.ProtocolVersion
	}
}
