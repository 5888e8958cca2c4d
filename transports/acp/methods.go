package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// handler serves one request (id set) or notification (id nil).
type handler func(c *conn, ctx actor.Context, id json.RawMessage, params json.RawMessage)

// role is who is on the other end of a connection: a person's client, or
// a process the daemon runs (an extension, a transformer), known from
// the per-process token it connected with.
type role uint8

const (
	roleClient role = 1 << iota
	roleExtension
	roleTransformer

	// anyone: clients and processes alike.
	anyone = roleClient | roleExtension | roleTransformer
	// processes: extensions and transformers.
	processes = roleExtension | roleTransformer
	// transformers: a transformer's connection alone.
	transformers = roleTransformer
)

// roleOf is a peer's role: no kind is a client; any kind but transformer
// is served as an extension.
func roleOf(p pipeline.Peer) role {
	switch p.Kind {
	case "":
		return roleClient
	case pipeline.KindTransformer:
		return roleTransformer
	default:
		return roleExtension
	}
}

// method is one served method and everything dispatch checks before
// serving it.
type method struct {
	serve handler
	// callers may call it; any other is answered MethodNotFound, as if the
	// method did not exist.
	callers role
	// mutates: refused (PermissionDenied) on a read-only attachment to the
	// session its params name.
	mutates bool
	// chained: a session's chain sees it at dispatch (request:<method>)
	// before it is served; prompt and cancel have their own, ordered,
	// paths (prompt.go).
	chained bool
}

// methods are every method a connection serves; any other answers
// MethodNotFound. The ACP spec's methods, hydra's extensions for clients,
// and the ones served to the daemon's processes (transformers' chain and
// workers, extensions' tools and slash commands).
var methods = map[string]method{
	// ACP (the spec's agent side) and hydra's session extensions.
	"initialize":                     {serve: (*conn).initialize, callers: anyone},
	"authenticate":                   {serve: (*conn).authenticate, callers: anyone},
	"session/new":                    {serve: (*conn).sessionNew, callers: anyone},
	"session/load":                   {serve: (*conn).sessionLoad, callers: anyone, chained: true},
	"session/resume":                 {serve: (*conn).sessionResume, callers: anyone},
	"session/attach":                 {serve: (*conn).sessionAttach, callers: anyone},
	"session/detach":                 {serve: (*conn).sessionDetach, callers: anyone},
	"session/close":                  {serve: (*conn).sessionClose, callers: anyone, mutates: true},
	"session/delete":                 {serve: (*conn).sessionDelete, callers: anyone, mutates: true},
	"session/list":                   {serve: (*conn).sessionList, callers: anyone},
	"session/prompt":                 {serve: (*conn).sessionPrompt, callers: anyone, mutates: true},
	"session/cancel":                 {serve: (*conn).sessionCancel, callers: anyone, mutates: true},
	"session/set_mode":               {serve: (*conn).setMode, callers: anyone, mutates: true, chained: true},
	"session/set_model":              {serve: (*conn).setModel, callers: anyone, mutates: true},
	"session/set_config_option":      {serve: (*conn).setConfigOption, callers: anyone, mutates: true},
	"hydra-acp/prompt/cancel":        {serve: (*conn).promptCancel, callers: anyone, mutates: true},
	"hydra-acp/prompt/update":        {serve: (*conn).promptUpdate, callers: anyone, mutates: true},
	"hydra-acp/prompt/amend":         {serve: (*conn).promptAmend, callers: anyone, mutates: true},
	"hydra-acp/agents/list":          {serve: (*conn).agentsList, callers: anyone},
	"hydra-acp/attention/set":        {serve: (*conn).attentionSet, callers: anyone, mutates: true},
	"hydra-acp/attention/clear":      {serve: (*conn).attentionClear, callers: anyone, mutates: true},
	"hydra-acp/session/fork":         {serve: (*conn).sessionFork, callers: anyone},
	"session/fork":                   {serve: (*conn).sessionForkSpec, callers: anyone},
	"hydra-acp/session/force_cancel": {serve: (*conn).sessionForceCancel, callers: anyone, mutates: true},
	"hydra-acp/session/load":         {serve: (*conn).hydraSessionLoad, callers: anyone},

	// A transformer's: its place in chains (peer.go), its own permission
	// requests to the clients (askpermission.go), its workers (children.go).
	"hydra-acp/transformer/initialize":     {serve: (*conn).transformerInitialize, callers: transformers},
	"hydra-acp/transformer/attach":         {serve: (*conn).transformerAttach, callers: transformers},
	"hydra-acp/message/emit":               {serve: (*conn).messageEmit, callers: transformers},
	"hydra-acp/connection/keep_alive":      {serve: (*conn).keepAlive, callers: transformers},
	"hydra-acp/session/request_permission": {serve: (*conn).transformerPermission, callers: transformers},
	"hydra-acp/child_session/spawn":        {serve: (*conn).childSpawn, callers: transformers},
	"hydra-acp/child_session/await":        {serve: (*conn).childAwait, callers: transformers},
	"hydra-acp/child_session/close":        {serve: (*conn).childClose, callers: transformers},

	// Any process's: tools offered to agents, slash commands
	// (register.go).
	"hydra-acp/mcp_tools/register": {serve: (*conn).mcpToolsRegister, callers: processes},
	"hydra-acp/commands/register":  {serve: (*conn).commandsRegister, callers: processes},
}

func (c *conn) dispatch(ctx actor.Context, m jsonrpc.Message) {
	meth, ok := methods[m.Method]
	if !ok || meth.callers&roleOf(c.peer) == 0 {
		if m.IsRequest() {
			c.fail(ctx, m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method))
		}
		return
	}
	if meth.mutates {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if a := c.att[p.SessionID]; a != nil && a.readonly {
			if m.IsRequest() {
				c.fail(ctx, m.ID, jsonrpc.NewError(CodePermissionDenied, "session "+p.SessionID+" is attached read-only: "+m.Method+" is refused"))
			}
			return
		}
	}
	if meth.chained && c.throughChain(ctx, m, meth.serve) {
		return
	}
	meth.serve(c, ctx, m.ID, m.Params)
}
