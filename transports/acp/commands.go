package acp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/runtime/llm"
)

// Slash commands: a `/hydra <name> <verb> args` prompt is queued like any
// prompt; when its run asks the model, CommandProvider answers instead, by
// asking process name (hydra-acp/commands/invoke), so the queue's
// notifications, prompt_received, the reply as agent_message_chunk and
// turn_complete are a prompt's.

const commandPrefix = "/hydra "

type commandSpec struct {
	Verb        string `json:"verb"`
	ArgsHint    string `json:"argsHint,omitempty"`
	Description string `json:"description,omitempty"`
}

type commandProcess struct {
	conn  *actor.PID
	verbs map[string]bool
}

// pendingCommand is a queued slash command, until its run asks for it.
type pendingCommand struct {
	session, messageID, text string
	conn                     *actor.PID // set once invoked
	cancelled                bool       // commands/cancel sent
	reason                   string     // why it is being cancelled, when known first (an amend)
}

func init() {
	methods["hydra-acp/commands/register"] = (*conn).commandsRegister
	processOnly["hydra-acp/commands/register"] = true
}

func (c *conn) commandsRegister(ctx actor.Context, id, params json.RawMessage) {
	var p struct {
		Commands []commandSpec `json:"commands"`
	}
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	verbs := map[string]bool{}
	for i, cmd := range p.Commands {
		if cmd.Verb == "" {
			c.fail(ctx, id, rpcErr(CodeInvalidParams, "invalid params: commands["+itoa(i)+"].verb is required"))
			return
		}
		verbs[cmd.Verb] = true
	}
	c.cfg.Pipeline.mu.Lock()
	c.cfg.Pipeline.commands[c.peer.Name] = &commandProcess{conn: ctx.Self(), verbs: verbs}
	c.cfg.Pipeline.mu.Unlock()
	c.reply(ctx, id, map[string]any{"ok": true, "registered": len(verbs)})
}

// dropCommands forgets conn's verbs when it closes.
func (p *Pipeline) dropCommands(name string, conn *actor.PID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.commands[name]; s != nil && s.conn.Equal(conn) {
		delete(p.commands, name)
	}
}

func isCommand(blocks []contentBlock) (string, bool) {
	if len(blocks) == 0 || blocks[0].Type != "text" || !strings.HasPrefix(blocks[0].Text, commandPrefix) {
		return "", false
	}
	return blocks[0].Text, true
}

// queuedCommand notes a slash command queued as messageID.
func (p *Pipeline) queuedCommand(session, messageID, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append(p.pending, &pendingCommand{session: session, messageID: messageID, text: text})
}

// takeCommand finds the queued command a run asks for: the oldest of
// session with this text.
func (p *Pipeline) takeCommand(session, text string) *pendingCommand {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pc := range p.pending {
		if pc.session == session && pc.text == text && pc.conn == nil {
			return pc
		}
	}
	return &pendingCommand{session: session, text: text}
}

func (p *Pipeline) forgetCommand(pc *pendingCommand) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.pending {
		if x == pc {
			p.pending = append(p.pending[:i], p.pending[i+1:]...)
			return
		}
	}
}

// cancelCommand tells the extension running messageID's command that it is
// cancelled, once per message id; the daemon does not wait for it.
func (p *Pipeline) cancelCommand(root *actor.RootContext, session, messageID, reason string) {
	p.mu.Lock()
	var target *pendingCommand
	for _, pc := range p.pending {
		if pc.session == session && (pc.messageID == messageID || messageID == "") && pc.conn != nil && !pc.cancelled {
			target = pc
			break
		}
	}
	if target != nil {
		target.cancelled = true
		if target.reason != "" {
			reason = target.reason
		}
	}
	p.mu.Unlock()
	if target != nil && target.messageID != "" {
		root.Send(target.conn, &peerNotify{method: "hydra-acp/commands/cancel",
			params: map[string]any{"sessionId": session, "messageId": target.messageID, "reason": reason}})
	}
}

// markCommand gives messageID's command the reason its coming cancel will
// carry ("" takes it back): an amend cancels the run before it answers.
func (p *Pipeline) markCommand(session, messageID, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pc := range p.pending {
		if pc.session == session && pc.messageID == messageID && !pc.cancelled {
			pc.reason = reason
		}
	}
}

// CommandProvider answers a run whose prompt is a slash command by asking
// the extension that registered it; any other request goes to inner.
func (p *Pipeline) CommandProvider(system *actor.ActorSystem, inner llm.Provider, session string) llm.Provider {
	return commandProvider{p: p, system: system, inner: inner, session: session}
}

type commandProvider struct {
	p       *Pipeline
	system  *actor.ActorSystem
	inner   llm.Provider
	session string
}

func (cp commandProvider) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	n := len(req.Messages)
	if n == 0 || req.Messages[n-1].Role != llm.RoleUser || !strings.HasPrefix(req.Messages[n-1].Content, commandPrefix) {
		if cp.inner == nil {
			return nil, errors.New("no model is configured")
		}
		return cp.inner.Stream(ctx, req, sink)
	}
	text := cp.run(ctx, req.Messages[n-1].Content)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if sink != nil && text != "" {
		if err := sink(llm.Chunk{Kind: llm.ChunkText, Text: text}); err != nil {
			return nil, err
		}
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: text}, FinishReason: llm.FinishStop}, nil
}

// run invokes the command and returns the text to show; a cancelled run
// tells the extension and returns at once.
func (cp commandProvider) run(ctx context.Context, text string) string {
	fields := strings.Fields(strings.TrimPrefix(text, commandPrefix))
	if len(fields) < 2 {
		return "usage: /hydra <extension> <verb> [args]"
	}
	name, verb := fields[0], fields[1]
	args := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, commandPrefix), name)), verb))
	cp.p.mu.Lock()
	proc := cp.p.commands[name]
	cp.p.mu.Unlock()
	if proc == nil {
		return "no extension " + name + " serves /hydra commands"
	}
	if !proc.verbs[verb] {
		return name + " has no command " + verb
	}
	pc := cp.p.takeCommand(cp.session, text)
	defer cp.p.forgetCommand(pc)
	answers := make(chan Message, 1)
	reply := cp.system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if a, ok := c.Message().(*peerAnswer); ok {
			select {
			case answers <- a.m:
			default:
			}
		}
	}))
	defer cp.system.Root.Stop(reply)
	cp.p.mu.Lock()
	pc.conn = proc.conn
	cp.p.mu.Unlock()
	params := map[string]any{"sessionId": cp.session, "verb": verb, "args": args}
	if pc.messageID != "" {
		params["messageId"] = pc.messageID
	}
	cp.system.Root.Send(proc.conn, &peerCall{method: "hydra-acp/commands/invoke", params: params, reply: reply})
	select {
	case <-ctx.Done():
		// Amend already said "amended"; anything else is a cancel.
		cp.p.cancelCommand(cp.system.Root, cp.session, pc.messageID, "cancelled")
		return ""
	case m := <-answers:
		if m.Error != nil {
			return name + " " + verb + " failed: " + m.Error.Message
		}
		var res struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Result, &res)
		return res.Text
	}
}
