package pipeline

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/acpupdate"
)

// Slash commands: a `/hydra <name> <verb> args` prompt is queued like any
// prompt; when its run asks the model, the daemon's engine answers with
// RunCommand instead, asking process name (hydra-acp/commands/invoke), so the queue's
// notifications, prompt_received, the reply as agent_message_chunk and
// turn_complete are a prompt's.

const commandPrefix = "/hydra "

// commands are the slash-command verbs each process registered
// (hydra-acp/commands/register), by process name, and the commands queued
// and running: one lock, since running one moves it from one to the other.
type commands struct {
	mu      sync.Mutex
	byName  map[string]*commandProcess
	pending []*pendingCommand // slash commands queued, not yet finished
}

type commandProcess struct {
	conn  *actor.PID
	verbs map[string]bool
	specs []CommandSpec // as registered, in order
}

// CommandSpec is one verb a process registered: `/hydra <name> <verb>`,
// with the arguments it takes (shown in help) and what it does.
type CommandSpec struct {
	Verb        string `json:"verb"`
	ArgsHint    string `json:"argsHint,omitempty"`
	Description string `json:"description,omitempty"`
}

// RegisteredCommand is a verb some process serves, for listing.
type RegisteredCommand struct {
	Name string // the process
	CommandSpec
}

// pendingCommand is a queued slash command, until its run asks for it.
type pendingCommand struct {
	session, messageID, text string
	conn                     *actor.PID // set once invoked
	cancelled                bool       // commands/cancel sent
	reason                   string     // why it is being cancelled, when known first (an amend)
}

// RegisterCommands records (or replaces) process name's verbs, served by
// its connection conn.
func (c *commands) RegisterCommands(name string, conn *actor.PID, specs []CommandSpec) {
	verbs := make(map[string]bool, len(specs))
	for _, sp := range specs {
		verbs[sp.Verb] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byName[name] = &commandProcess{conn: conn, verbs: verbs, specs: slices.Clone(specs)}
}

// Commands lists every verb the connected processes serve, by process
// name, each's in the order it registered them.
func (c *commands) Commands() []RegisteredCommand {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []RegisteredCommand
	for _, name := range slices.Sorted(maps.Keys(c.byName)) {
		for _, sp := range c.byName[name].specs {
			out = append(out, RegisteredCommand{Name: name, CommandSpec: sp})
		}
	}
	return out
}

// serving is the process that serves `/hydra name …`: name's, or by
// hydra's convention hydra-acp-name's when name is a package's short name.
func (c *commands) serving(name string) (string, *commandProcess) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.byName[name]; p != nil {
		return name, p
	}
	long := "hydra-acp-" + name
	return long, c.byName[long]
}

// drop forgets conn's verbs when it closes; true when it had any.
func (c *commands) drop(name string, conn *actor.PID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.byName[name]; s != nil && s.conn.Equal(conn) {
		delete(c.byName, name)
		return true
	}
	return false
}

// AdvertisedCommand is one entry of a session's availableCommands: a
// slash command's name without its slash (clients add it), with its
// arguments' hint.
type AdvertisedCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// AvailableCommands are the slash commands a session's clients may send:
// /hydra itself, and each registered `/hydra <process> <verb>`, in order
// of process and verb so every answer lists them alike.
func (c *commands) AvailableCommands() []AdvertisedCommand {
	out := []AdvertisedCommand{{Name: "hydra", Description: "Hydra session command: /hydra <verb> [args] (see /hydra help)"}}
	for _, rc := range c.Commands() {
		name := "hydra " + rc.Name + " " + rc.Verb
		if rc.ArgsHint != "" {
			name += " " + rc.ArgsHint
		}
		out = append(out, AdvertisedCommand{Name: name, Description: rc.Description})
	}
	return out
}

// CommandText is a prompt's slash command, when its first block is one.
func CommandText(blocks []acpupdate.ContentBlock) (string, bool) {
	if len(blocks) == 0 || blocks[0].Type != "text" || !strings.HasPrefix(blocks[0].Text, commandPrefix) {
		return "", false
	}
	return blocks[0].Text, true
}

// QueuedCommand notes a slash command queued as messageID.
func (c *commands) QueuedCommand(session, messageID, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, &pendingCommand{session: session, messageID: messageID, text: text})
}

// QueueLeft forgets messageID's queued command when the queue lets go of
// it without running it (cancelled, amended out, its run ended before it
// asked): nothing will take it, and a later command of the same text must
// not. An invoked command is RunCommand's to forget.
func (c *commands) QueueLeft(session, messageID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = slices.DeleteFunc(c.pending, func(pc *pendingCommand) bool {
		return pc.session == session && pc.messageID == messageID && pc.conn == nil
	})
}

// QueueEdited follows an update (or an amend) of messageID while it
// waits: its command is now text, or none when text is not one. A prompt
// edited into a command is added only from the event (add), which comes
// before its run's end in the same stream: an answer handled late must
// not add one its run already took and forgot.
func (c *commands) QueueEdited(session, messageID string, blocks []acpupdate.ContentBlock, add bool) {
	text, isCmd := CommandText(blocks)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, pc := range c.pending {
		if pc.session != session || pc.messageID != messageID {
			continue
		}
		if pc.conn != nil {
			return // it ran meanwhile; the edit came too late for it
		}
		if !isCmd {
			c.pending = slices.Delete(c.pending, i, i+1)
			return
		}
		// An amend's mark is spent: the entry it edited stays queued.
		pc.text, pc.reason = text, ""
		return
	}
	if isCmd && add {
		c.pending = append(c.pending, &pendingCommand{session: session, messageID: messageID, text: text})
	}
}

// sessionGone forgets a deleted session's queued commands.
func (c *commands) sessionGone(session string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = slices.DeleteFunc(c.pending, func(pc *pendingCommand) bool {
		return pc.session == session && pc.conn == nil
	})
}

// SessionClosing marks session's commands in flight: the cancel that the
// close (a kill, a delete, session/close) is about to cause them is
// "abandoned". Queued ones are not marked: they run when the session is
// back, and are cancelled as any prompt then.
func (c *commands) SessionClosing(session string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, pc := range c.pending {
		if pc.session == session && pc.conn != nil && !pc.cancelled {
			pc.reason = "abandoned"
		}
	}
}

// Abandon tells every extension running a command that it is abandoned
// (the daemon is shutting down), while their connections still stand;
// the cancels that follow as the sessions stop are not sent again.
func (c *commands) Abandon(root *actor.RootContext) {
	c.mu.Lock()
	var cut []*pendingCommand
	for _, pc := range c.pending {
		if pc.conn != nil && !pc.cancelled && pc.messageID != "" {
			pc.cancelled = true
			cut = append(cut, pc)
		}
	}
	c.mu.Unlock()
	for _, pc := range cut {
		root.Send(pc.conn, &Notify{Method: "hydra-acp/commands/cancel",
			Params: map[string]any{"sessionId": pc.session, "messageId": pc.messageID, "reason": "abandoned"}})
	}
}

// takeCommand finds the queued command a run asks for: the oldest of
// session with this text.
func (c *commands) takeCommand(session, text string) *pendingCommand {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, pc := range c.pending {
		if pc.session == session && pc.text == text && pc.conn == nil {
			return pc
		}
	}
	return &pendingCommand{session: session, text: text}
}

func (c *commands) forgetCommand(pc *pendingCommand) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.pending {
		if x == pc {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return
		}
	}
}

// CancelCommand tells the extension running messageID's command that it is
// cancelled, once per message id; the daemon does not wait for it.
func (c *commands) CancelCommand(root *actor.RootContext, session, messageID, reason string) {
	c.mu.Lock()
	var target *pendingCommand
	for _, pc := range c.pending {
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
	c.mu.Unlock()
	if target != nil && target.messageID != "" {
		root.Send(target.conn, &Notify{Method: "hydra-acp/commands/cancel",
			Params: map[string]any{"sessionId": session, "messageId": target.messageID, "reason": reason}})
	}
}

// MarkCommand gives messageID's command the reason its coming cancel will
// carry ("" takes it back): an amend cancels the run before it answers.
func (c *commands) MarkCommand(session, messageID, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, pc := range c.pending {
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
// once (with ctx's error). IsCommand texts only.
func (c *commands) RunCommand(ctx context.Context, system *actor.ActorSystem, session, text string) (string, error) {
	fields := strings.Fields(strings.TrimPrefix(text, commandPrefix))
	if len(fields) < 2 {
		return "usage: /hydra <extension> <verb> [args]", nil
	}
	typed, verb := fields[0], fields[1]
	args := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, commandPrefix), typed)), verb))
	name, proc := c.serving(typed)
	if proc == nil {
		name = typed
		return "no extension " + name + " serves /hydra commands", nil
	}
	if !proc.verbs[verb] {
		return name + " has no command " + verb, nil
	}
	pc := c.takeCommand(session, text)
	defer c.forgetCommand(pc)
	c.mu.Lock()
	pc.conn = proc.conn
	c.mu.Unlock()
	params := map[string]any{"sessionId": session, "verb": verb, "args": args}
	if pc.messageID != "" {
		params["messageId"] = pc.messageID
	}
	m, err := callProcess(ctx, system, proc.conn, commandTimeout, "hydra-acp/commands/invoke", params)
	if ctx.Err() != nil {
		// An amend already said "amended"; anything else is a cancel.
		c.CancelCommand(system.Root, session, pc.messageID, "cancelled")
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
