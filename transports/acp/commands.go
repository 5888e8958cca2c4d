package acp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// Slash commands: a `/hydra <name> <verb> args` prompt is queued like any
// prompt; when its run asks the model, the daemon's engine answers with
// RunCommand instead, asking process name (hydra-acp/commands/invoke), so the queue's
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
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: commands["+itoa(i)+"].verb is required"))
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

// queueLeft forgets messageID's queued command when the queue lets go of
// it without running it (cancelled, amended out, its run ended before it
// asked): nothing will take it, and a later command of the same text must
// not. An invoked command is RunCommand's to forget.
func (p *Pipeline) queueLeft(session, messageID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = slices.DeleteFunc(p.pending, func(pc *pendingCommand) bool {
		return pc.session == session && pc.messageID == messageID && pc.conn == nil
	})
}

// queueEdited follows an update (or an amend) of messageID while it
// waits: its command is now text, or none when text is not one. A prompt
// edited into a command is added only from the event (add), which comes
// before its run's end in the same stream: an answer handled late must
// not add one its run already took and forgot.
func (p *Pipeline) queueEdited(session, messageID string, blocks []contentBlock, add bool) {
	text, isCmd := isCommand(blocks)
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, pc := range p.pending {
		if pc.session != session || pc.messageID != messageID {
			continue
		}
		if pc.conn != nil {
			return // it ran meanwhile; the edit came too late for it
		}
		if !isCmd {
			p.pending = slices.Delete(p.pending, i, i+1)
			return
		}
		// An amend's mark is spent: the entry it edited stays queued.
		pc.text, pc.reason = text, ""
		return
	}
	if isCmd && add {
		p.pending = append(p.pending, &pendingCommand{session: session, messageID: messageID, text: text})
	}
}

// SessionGone forgets what the pipeline holds of a deleted session: its
// queued commands and its chain (a bundle imported onto the same id, with
// replace, starts with none; its link ended with the session).
func (p *Pipeline) SessionGone(session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.chains, session)
	delete(p.relive, session)
	p.pending = slices.DeleteFunc(p.pending, func(pc *pendingCommand) bool {
		return pc.session == session && pc.conn == nil
	})
}

// SessionClosing marks session's commands in flight: the cancel that the
// close (a kill, a delete, session/close) is about to cause them is
// "abandoned". Queued ones are not marked: they run when the session is
// back, and are cancelled as any prompt then.
func (p *Pipeline) SessionClosing(session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pc := range p.pending {
		if pc.session == session && pc.conn != nil && !pc.cancelled {
			pc.reason = "abandoned"
		}
	}
}

// Abandon tells every extension running a command that it is abandoned
// (the daemon is shutting down), while their connections still stand;
// the cancels that follow as the sessions stop are not sent again.
func (p *Pipeline) Abandon(root *actor.RootContext) {
	p.mu.Lock()
	var cut []*pendingCommand
	for _, pc := range p.pending {
		if pc.conn != nil && !pc.cancelled && pc.messageID != "" {
			pc.cancelled = true
			cut = append(cut, pc)
		}
	}
	p.mu.Unlock()
	for _, pc := range cut {
		root.Send(pc.conn, &peerNotify{method: "hydra-acp/commands/cancel",
			params: map[string]any{"sessionId": pc.session, "messageId": pc.messageID, "reason": "abandoned"}})
	}
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

// IsCommand reports a prompt text that is a slash command.
func IsCommand(text string) bool { return strings.HasPrefix(text, commandPrefix) }

// commandTimeout bounds a slash command's wait for its extension.
const commandTimeout = 30 * time.Minute

// RunCommand invokes a slash command's extension for session and returns
// the text to show; a cancelled ctx tells the extension and returns at
// once (with ctx's error). acp.IsCommand texts only.
func (p *Pipeline) RunCommand(ctx context.Context, system *actor.ActorSystem, session, text string) (string, error) {
	fields := strings.Fields(strings.TrimPrefix(text, commandPrefix))
	if len(fields) < 2 {
		return "usage: /hydra <extension> <verb> [args]", nil
	}
	name, verb := fields[0], fields[1]
	args := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, commandPrefix), name)), verb))
	p.mu.Lock()
	proc := p.commands[name]
	p.mu.Unlock()
	if proc == nil {
		return "no extension " + name + " serves /hydra commands", nil
	}
	if !proc.verbs[verb] {
		return name + " has no command " + verb, nil
	}
	pc := p.takeCommand(session, text)
	defer p.forgetCommand(pc)
	p.mu.Lock()
	pc.conn = proc.conn
	p.mu.Unlock()
	params := map[string]any{"sessionId": session, "verb": verb, "args": args}
	if pc.messageID != "" {
		params["messageId"] = pc.messageID
	}
	m, err := callProcess(ctx, system, proc.conn, commandTimeout, "hydra-acp/commands/invoke", params)
	if ctx.Err() != nil {
		// An amend already said "amended"; anything else is a cancel.
		p.cancelCommand(system.Root, session, pc.messageID, "cancelled")
		return "", ctx.Err()
	}
	if err != nil {
		return name + " " + verb + " failed: " + err.Error(), nil
	}
	if m.Error != nil {
		return name + " " + verb + " failed: " + m.Error.Message, nil
	}
	var res struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Result, &res)
	return res.Text, nil
}
