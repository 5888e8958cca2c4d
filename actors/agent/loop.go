package agent

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/runtime/agentjs"
	"github.com/troupehq/troupe/runtime/agentpkg"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/skills"
	"github.com/troupehq/troupe/runtime/tools"
	"github.com/troupehq/troupe/runtime/tooltext"
)

// activateSkill is the built-in tool when skills exist.
const activateSkill = skills.ToolName

// agentic is the loop's state, owned by the actor.
type agentic struct {
	messages []llm.Message
	maxTurns int
	turn     int
	final    bool // the max-turns request was sent: this reply is the answer
	skills   bool

	mcp map[string]tools.Tool // the MCP servers' tools by name

	calls   []tooltext.Call
	results []tooltext.ToolResult
	lastRaw string
}

type replied struct {
	resp    *llm.Response
	err     error
	elapsed time.Duration
}

type toolRan struct {
	result  string
	err     error
	elapsed time.Duration
}

func newAgentic(r *runner, s agentjs.Setup, mcpTools []tools.Tool) *agentic {
	a := &agentic{maxTurns: agentpkg.DefaultMaxTurns, skills: len(r.opts.Skills.Skills) > 0, mcp: map[string]tools.Tool{}}
	if m := r.opts.Manifest.MaxTurns; m > 0 {
		a.maxTurns = m
	}
	if s.MaxTurns > 0 {
		a.maxTurns = s.MaxTurns
	}
	list := make([]tooltext.Tool, 0, len(s.Tools)+len(mcpTools)+1)
	for _, t := range s.Tools {
		list = append(list, tooltext.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	for _, t := range mcpTools {
		list = append(list, tooltext.Tool{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()})
		a.mcp[t.Name()] = t
	}
	catalog := ""
	if a.skills {
		list = append(list, r.opts.Skills.Tool())
		catalog = r.opts.Skills.Prompt()
	}
	system := tooltext.SystemPrompt(s.SystemPrompt, catalog, list)
	user := prompt(r.opts.Args)
	r.tracef("system prompt:\n%s", system)
	r.tracef("user prompt: %s", user)
	a.messages = []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}}
	r.agentEvent(SetupEvent{Type: "agent.setup", ToolCount: len(list)})
	return a
}

func (a *agentic) begin(ctx actor.Context, r *runner) { a.ask(r) }

// ask sends the conversation to the model on the worker.
func (a *agentic) ask(r *runner) {
	r.agentEvent(TurnEvent{Type: "agent.turn", Turn: a.turn, MaxTurns: a.maxTurns, MessageCount: len(a.messages)})
	r.tracef("turn %d: %d messages", a.turn, len(a.messages))
	req := llm.Request{Model: r.opts.Model, Messages: append([]llm.Message(nil), a.messages...), SessionID: r.opts.SessionID}
	rctx, provider := r.ctx, r.opts.Provider
	r.run(func() any {
		start := time.Now()
		resp, err := provider.Stream(rctx, req, nil)
		if err == nil && resp == nil {
			err = errors.New("the model sent no reply")
		}
		return replied{resp: resp, err: err, elapsed: time.Since(start)}
	})
}

func (a *agentic) onReply(ctx actor.Context, r *runner, msg replied) {
	if r.ended {
		return
	}
	if msg.err != nil {
		r.finish(ctx, Result{}, r.stopped(msg.err))
		return
	}
	raw := msg.resp.Message.Content
	parsed := tooltext.Parse(raw)
	r.tracef("turn %d: reply in %d ms, %d chars, %d tool calls: %s", a.turn, msg.elapsed.Milliseconds(), len(raw), len(parsed.Calls), cut(raw, 200))
	// The raw reply, thinking included, stays in the history.
	a.messages = append(a.messages, llm.Message{Role: llm.RoleAssistant, Content: raw})
	if a.final || parsed.Final() {
		r.agentEvent(CompleteEvent{Type: "agent.complete", Turns: a.turn + 1, FinalLen: len(parsed.Text)})
		r.finish(ctx, Result{Status: "ok", Result: parsed.Text, Turns: a.turn + 1}, nil)
		return
	}
	a.calls, a.results = parsed.Calls, nil
	for _, e := range parsed.Errors {
		a.results = append(a.results, e.Result())
	}
	a.next(ctx, r)
}

// next runs the next call of the turn, or sends the results back.
func (a *agentic) next(ctx actor.Context, r *runner) {
	if len(a.calls) == 0 {
		a.endTurn(r)
		return
	}
	c := a.calls[0]
	var args any = map[string]any{}
	_ = json.Unmarshal([]byte(c.Arguments), &args) // tooltext gives a JSON object
	r.agentEvent(ToolCallEvent{Type: "agent.tool_call", Name: c.Name, Args: args})
	if c.Name == activateSkill && a.skills {
		start := time.Now()
		out, err := r.opts.Skills.Activate(c.Arguments)
		if err != nil {
			out = tooltext.ErrorContent(err)
		}
		a.onTool(ctx, r, toolRan{result: out, elapsed: time.Since(start)})
		return
	}
	if t, ok := a.mcp[c.Name]; ok {
		rctx, cwd := r.ctx, r.opts.Cwd
		r.run(func() any {
			start := time.Now()
			out := mcpCall(rctx, t, cwd, c.Arguments)
			return toolRan{result: out, elapsed: time.Since(start), err: rctx.Err()}
		})
		return
	}
	rt := r.rt
	r.run(func() any {
		start := time.Now()
		out, err := rt.Call(c.Name, c.Arguments)
		return toolRan{result: out, err: err, elapsed: time.Since(start)}
	})
}

func (a *agentic) onTool(ctx actor.Context, r *runner, msg toolRan) {
	if r.ended {
		return
	}
	if msg.err != nil {
		r.finish(ctx, Result{}, r.stopped(msg.err))
		return
	}
	c := a.calls[0]
	a.calls = a.calls[1:]
	r.tracef("tool %s %s: %d ms, %d chars", c.Name, c.Arguments, msg.elapsed.Milliseconds(), len(msg.result))
	r.agentEvent(ToolResultEvent{Type: "agent.tool_result", Name: c.Name, Result: cut(msg.result, maxEventResult), DurationMS: msg.elapsed.Milliseconds()})
	a.results = append(a.results, tooltext.ToolResult{Name: c.Name, Content: msg.result})
	a.next(ctx, r)
}

// endTurn sends the turn's results as one user message, and the
// max-turns request once the turns are used up.
func (a *agentic) endTurn(r *runner) {
	a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: tooltext.FormatResults(a.results)})
	last := make([]agentjs.ToolResult, 0, len(a.results))
	for _, res := range a.results {
		last = append(last, agentjs.ToolResult{Name: res.Name, Result: res.Content})
	}
	r.rt.SetLastResults(last)
	a.turn++
	if a.turn >= a.maxTurns {
		a.final = true
		a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: tooltext.FinalAnswerRequest})
	}
	a.ask(r)
}
