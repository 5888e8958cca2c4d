// Command troupe-plugin is a small extension or transformer for tests of
// `troupe daemon`: it connects back over /acp with the per-process token
// the daemon gave it (HYDRA_ACP_URL, HYDRA_ACP_TOKEN), says its version in
// initialize, and, as a transformer, intercepts what PLUGIN_INTERCEPTS
// lists and acts as PLUGIN_MODE says:
//
//	rewrite  continue, with each prompt's text prefixed by "rewritten: "
//	stop     stop, answering {"stopReason": "refusal"} (a permission: the default auto-deny)
//	hold     processing; then emit the prompt, prefixed "held: ", with
//	         route chain and discharge the claim with the agent's response
//	abandon  processing, never discharged
//	keepalive processing, kept alive five times 300 ms apart, then
//	         discharged with {"stopReason": "end_turn"} (the agent never asked)
//	askperm  on session.opened: ask the session's clients a permission
//	         (hydra-acp/session/request_permission; the "permission" probe)
//	child    on session.opened: spawn a child session, prompt it while
//	         awaiting its turn, close it (the "child" probe); the spawn's
//	         interactive is PLUGIN_CHILD_INTERACTIVE's ("true"/"false"), when set
//	(empty)  continue unchanged
//
// PLUGIN_UPDATES says what it does with the response:session/update
// messages it intercepts (it continues unchanged without it):
//
//	upper      continue, an agent_message_chunk's text in upper case
//	slowupper  the same after 200 ms
//	droptools  stop (drop) tool_call and tool_call_update, continue others
//	holdupper  processing; then discharge the claim with the envelope,
//	           a chunk's text in upper case
//	abandon    processing, never discharged
//
// With PLUGIN_COMMANDS set it registers the slash-command verbs greet
// (answering "hello <args> (message <messageId>)"), slow (never
// answering), attach (hydra-acp/transformer/attach to the session) and
// child (prompting the child session named by its args while awaiting its
// turn, then closing it; answering the "child" probe's fields as JSON).
// With PLUGIN_TOOLS set it registers an MCP tool, echo, answering
// "echo: <text> from <sessionId>".
//
// Every frame it reads is appended as one JSON line to PLUGIN_LOG, when
// set, and it reports on its own lines there too ({"probe": …}), so a test
// reads what the daemon sent and answered. It exits when the connection
// ends; with PLUGIN_DRAIN set it ignores SIGTERM, so a daemon's shutdown
// (which closes the connection before it stops its programs) cannot cut
// what the daemon said last before it is logged.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

type plugin struct {
	ws   *websocket.Conn
	mode string

	mu      sync.Mutex // guards writes, next and waiting
	next    int
	waiting map[int]chan jsonrpc.Message
	log     *os.File
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "troupe-plugin:", err)
		os.Exit(1)
	}
}

func run() error {
	url, tok := os.Getenv("HYDRA_ACP_URL"), os.Getenv("HYDRA_ACP_TOKEN")
	if url == "" || tok == "" || os.Getenv("TROUPE_TOKEN") != tok {
		return fmt.Errorf("HYDRA_ACP_URL, HYDRA_ACP_TOKEN and TROUPE_TOKEN must be set (the same token)")
	}
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1", "hydra-acp-token." + tok}}
	ws, _, err := dl.Dial(url, nil)
	if err != nil {
		return fmt.Errorf("dial %s: %w", url, err)
	}
	defer ws.Close()
	p := &plugin{ws: ws, mode: os.Getenv("PLUGIN_MODE"), waiting: map[int]chan jsonrpc.Message{}}
	if path := os.Getenv("PLUGIN_LOG"); path != "" {
		if p.log, err = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err != nil {
			return err
		}
		defer p.log.Close()
	}
	p.record(map[string]any{"pid": os.Getpid()})
	done := make(chan error, 1)
	go func() { done <- p.read() }()
	if os.Getenv("PLUGIN_DRAIN") != "" {
		// A daemon shutting down closes the connection before it stops its
		// programs: what it said last is read and logged, then we go.
		signal.Ignore(syscall.SIGTERM)
	}
	init := p.call("initialize", map[string]any{"protocolVersion": 1,
		"clientInfo": map[string]any{"name": "troupe-plugin", "version": os.Getenv("PLUGIN_VERSION")}})
	if init.Error != nil {
		return fmt.Errorf("initialize: %s", init.Error.Message)
	}
	var intercepts []string
	if s := os.Getenv("PLUGIN_INTERCEPTS"); s != "" {
		intercepts = strings.Split(s, ",")
	}
	ti := p.call("hydra-acp/transformer/initialize", map[string]any{"intercepts": intercepts})
	code := 0
	if ti.Error != nil {
		code = ti.Error.Code
	}
	p.record(map[string]any{"probe": "transformer/initialize", "errorCode": code})
	if os.Getenv("PLUGIN_COMMANDS") != "" {
		res := p.call("hydra-acp/commands/register", map[string]any{"commands": []any{
			map[string]any{"verb": "greet", "argsHint": "<name>"}, map[string]any{"verb": "slow"}, map[string]any{"verb": "attach"},
			map[string]any{"verb": "child", "argsHint": "<childSessionId>"}}})
		p.record(map[string]any{"probe": "commands/register", "result": res.Result, "error": res.Error})
	}
	if os.Getenv("PLUGIN_TOOLS") != "" {
		res := p.call("hydra-acp/mcp_tools/register", map[string]any{"tools": []any{map[string]any{
			"name": "echo", "description": "says the text back, with the session it was called from",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}}})
		p.record(map[string]any{"probe": "mcp_tools/register", "result": res.Result, "error": res.Error})
	}
	return <-done
}

// read dispatches frames until the connection ends.
func (p *plugin) read() error {
	for {
		_, b, err := p.ws.ReadMessage()
		if err != nil {
			return nil // the daemon went away: so do we
		}
		var f jsonrpc.Message
		if json.Unmarshal(b, &f) != nil {
			continue
		}
		p.record(json.RawMessage(b))
		switch {
		case f.Method == "" && f.ID != nil:
			var id int
			_ = json.Unmarshal(f.ID, &id)
			p.mu.Lock()
			ch := p.waiting[id]
			delete(p.waiting, id)
			p.mu.Unlock()
			if ch != nil {
				ch <- f
			}
		case f.Method == "hydra-acp/transformer/message":
			go p.intercept(f)
		case f.Method == "hydra-acp/transformer/session_event" && p.mode == "child":
			var ev struct {
				Event     string `json:"event"`
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(f.Params, &ev)
			if ev.Event == "session.opened" {
				go p.child(ev.SessionID)
			}
		case f.Method == "hydra-acp/transformer/session_event" && p.mode == "askperm":
			var ev struct {
				Event     string `json:"event"`
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(f.Params, &ev)
			if ev.Event == "session.opened" {
				go p.askPermission(ev.SessionID)
			}
		case f.Method == "hydra-acp/commands/invoke":
			var in struct {
				Verb      string `json:"verb"`
				Args      string `json:"args"`
				MessageID string `json:"messageId"`
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(f.Params, &in)
			if in.Verb == "attach" {
				go func() {
					res := p.call("hydra-acp/transformer/attach", map[string]any{"sessionId": in.SessionID})
					text := "attached " + string(res.Result)
					if res.Error != nil {
						text = "attach failed: " + res.Error.Message
					}
					p.send(jsonrpc.NewResult(f.ID, map[string]any{"text": text}))
				}()
			}
			if in.Verb == "child" {
				go func() {
					b, _ := json.Marshal(p.work(strings.TrimSpace(in.Args)))
					p.send(jsonrpc.NewResult(f.ID, map[string]any{"text": string(b)}))
				}()
			}
			if in.Verb == "greet" {
				p.send(jsonrpc.NewResult(f.ID, map[string]any{
					"text": "hello " + in.Args + " (message " + in.MessageID + ")"}))
			} // slow: never answers; the daemon does not wait once it cancels
		case f.Method == "hydra-acp/mcp_tools/invoke":
			var in struct {
				Tool      string `json:"tool"`
				SessionID string `json:"sessionId"`
				Args      struct {
					Text string `json:"text"`
				} `json:"args"`
			}
			_ = json.Unmarshal(f.Params, &in)
			p.send(jsonrpc.NewResult(f.ID, map[string]any{
				"content": []any{map[string]any{"type": "text", "text": in.Tool + ": " + in.Args.Text + " from " + in.SessionID}}}))
		case f.ID != nil:
			p.send(jsonrpc.NewErrorAnswer(f.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "not served")))
		}
	}
}

func (p *plugin) record(v any) {
	if p.log == nil {
		return
	}
	b, _ := json.Marshal(v)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.log.Write(append(b, '\n'))
}

func (p *plugin) send(v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.ws.WriteJSON(v)
}

// call sends a request and waits for its answer.
func (p *plugin) call(method string, params any) jsonrpc.Message { return <-p.start(method, params) }

// start sends a request; its answer comes on the channel.
func (p *plugin) start(method string, params any) <-chan jsonrpc.Message {
	ch := make(chan jsonrpc.Message, 1)
	p.mu.Lock()
	p.next++
	id := p.next
	p.waiting[id] = ch
	_ = p.ws.WriteJSON(jsonrpc.NewRequest(jsonrpc.IntID(int64(id)), method, params))
	p.mu.Unlock()
	return ch
}

// askPermission asks session's clients a permission of its own (after two
// malformed asks), and logs the answers as the "permission" probe.
func (p *plugin) askPermission(session string) {
	ask := func(sid string) jsonrpc.Message {
		return p.call("hydra-acp/session/request_permission", map[string]any{"sessionId": sid,
			"toolCall": map[string]any{"toolCallId": "deploy-1", "title": "deploy"},
			"options": []any{map[string]any{"optionId": "allow_once", "name": "Allow", "kind": "allow_once"},
				map[string]any{"optionId": "reject_once", "name": "Reject", "kind": "reject_once"}}})
	}
	code := func(f jsonrpc.Message) int {
		if f.Error == nil {
			return 0
		}
		return f.Error.Code
	}
	noSession, unknown, real := ask(""), ask("nope"), ask(session)
	p.record(map[string]any{"probe": "permission", "noSession": code(noSession), "unknown": code(unknown),
		"result": real.Result, "error": real.Error})
}

// child spawns a child of session, prompts it (route daemon) while
// awaiting its turn, closes it, and logs it all as the "child" probe.
func (p *plugin) child(session string) {
	params := map[string]any{"parentSessionId": session, "_meta": map[string]any{"hydra-acp": map[string]any{"title": "worker"}}}
	if v := os.Getenv("PLUGIN_CHILD_INTERACTIVE"); v != "" {
		params["interactive"] = v == "true"
	}
	sp := p.call("hydra-acp/child_session/spawn", params)
	var res struct {
		ChildSessionID string `json:"childSessionId"`
	}
	_ = json.Unmarshal(sp.Result, &res)
	out := map[string]any{"probe": "child", "spawn": sp.Result, "spawnError": sp.Error, "childSessionId": res.ChildSessionID}
	if res.ChildSessionID != "" {
		for k, v := range p.work(res.ChildSessionID) {
			out[k] = v
		}
	}
	p.record(out)
}

// work prompts child (route daemon) while awaiting its turn, then closes
// it; it returns what each call answered.
func (p *plugin) work(child string) map[string]any {
	wait := p.start("hydra-acp/child_session/await", map[string]any{"childSessionId": child, "timeoutMs": 60000})
	emit := p.call("hydra-acp/message/emit", map[string]any{"sessionId": child, "method": "session/prompt",
		"route": "daemon", "envelope": map[string]any{"sessionId": child,
			"prompt": []any{map[string]any{"type": "text", "text": "work"}}}})
	aw := <-wait
	cl := p.call("hydra-acp/child_session/close", map[string]any{"childSessionId": child})
	return map[string]any{"emit": emit.Result, "await": aw.Result, "awaitError": aw.Error, "close": cl.Result, "closeError": cl.Error}
}

type message struct {
	Token     string          `json:"token"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Envelope  json.RawMessage `json:"envelope"`
}

func (p *plugin) intercept(f jsonrpc.Message) {
	var m message
	_ = json.Unmarshal(f.Params, &m)
	answer := func(v any) { p.send(jsonrpc.NewResult(f.ID, v)) }
	if m.Method == "session/update" { // every frame is in the log
		p.update(m, answer)
		return
	}
	switch p.mode {
	case "rewrite":
		answer(map[string]any{"action": "continue", "payload": prefixed(m.Envelope, "rewritten: ")})
	case "stop":
		if m.Method == "session/prompt" {
			answer(map[string]any{"action": "stop", "payload": map[string]any{"stopReason": "refusal"}})
			return
		}
		answer(map[string]any{"action": "stop"})
	case "hold":
		answer(map[string]any{"action": "processing"})
		res := p.call("hydra-acp/message/emit", map[string]any{"sessionId": m.SessionID, "method": m.Method,
			"envelope": prefixed(m.Envelope, "held: "), "route": "chain"})
		p.record(map[string]any{"probe": "emit", "result": res.Result, "error": res.Error})
		var out struct {
			Response json.RawMessage `json:"response"`
		}
		_ = json.Unmarshal(res.Result, &out)
		dis := p.call("hydra-acp/message/emit", map[string]any{"sessionId": m.SessionID, "method": m.Method,
			"envelope": out.Response, "respondsTo": m.Token})
		p.record(map[string]any{"probe": "discharge", "result": dis.Result, "error": dis.Error})
	case "abandon":
		answer(map[string]any{"action": "processing"})
	case "keepalive":
		answer(map[string]any{"action": "processing"})
		for range 5 {
			time.Sleep(300 * time.Millisecond)
			ka := p.call("hydra-acp/connection/keep_alive", map[string]any{"token": m.Token, "sessionId": m.SessionID})
			p.record(map[string]any{"probe": "keep_alive", "result": ka.Result, "error": ka.Error})
		}
		p.call("hydra-acp/message/emit", map[string]any{"sessionId": m.SessionID, "method": m.Method,
			"envelope": map[string]any{"stopReason": "end_turn", "_meta": map[string]any{"heldFor": "1.5s"}}, "respondsTo": m.Token})
	default:
		answer(map[string]any{"action": "continue"})
	}
}

// prefixed is a prompt envelope with pre before its first text block.
func prefixed(env json.RawMessage, pre string) json.RawMessage {
	var e map[string]any
	if json.Unmarshal(env, &e) != nil {
		return env
	}
	if blocks, ok := e["prompt"].([]any); ok {
		for _, b := range blocks {
			if m, ok := b.(map[string]any); ok && m["type"] == "text" {
				m["text"] = pre + fmt.Sprint(m["text"])
				break
			}
		}
	}
	out, _ := json.Marshal(e)
	return out
}

// update acts on a response:session/update as PLUGIN_UPDATES says.
func (p *plugin) update(m message, answer func(any)) {
	var env struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
		} `json:"update"`
	}
	_ = json.Unmarshal(m.Envelope, &env)
	switch os.Getenv("PLUGIN_UPDATES") {
	case "upper":
		answer(map[string]any{"action": "continue", "payload": upper(m.Envelope)})
	case "slowupper":
		time.Sleep(200 * time.Millisecond)
		answer(map[string]any{"action": "continue", "payload": upper(m.Envelope)})
	case "droptools":
		if k := env.Update.SessionUpdate; k == "tool_call" || k == "tool_call_update" {
			answer(map[string]any{"action": "stop"})
			return
		}
		answer(map[string]any{"action": "continue"})
	case "holdupper":
		answer(map[string]any{"action": "processing"})
		dis := p.call("hydra-acp/message/emit", map[string]any{"sessionId": m.SessionID, "method": m.Method,
			"envelope": upper(m.Envelope), "respondsTo": m.Token})
		if dis.Error != nil {
			p.record(map[string]any{"probe": "discharge", "error": dis.Error})
		}
	case "abandon":
		answer(map[string]any{"action": "processing"})
	default:
		answer(map[string]any{"action": "continue"})
	}
}

// upper is a session/update envelope with an agent_message_chunk's text
// in upper case (any other update as it was).
func upper(env json.RawMessage) json.RawMessage {
	var e map[string]any
	if json.Unmarshal(env, &e) != nil {
		return env
	}
	u, _ := e["update"].(map[string]any)
	c, _ := u["content"].(map[string]any)
	if u["sessionUpdate"] != "agent_message_chunk" || c == nil {
		return env
	}
	c["text"] = strings.ToUpper(fmt.Sprint(c["text"]))
	out, _ := json.Marshal(e)
	return out
}
