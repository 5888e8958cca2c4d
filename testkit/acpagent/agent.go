package acpagent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Options configure the agent.
type Options struct {
	// StateDir keeps the sessions; "" keeps them in memory only.
	StateDir string
	// NoLoad: the agent cannot load sessions (no loadSession capability).
	NoLoad bool
	// NoSetModel: session/set_model is not taken, only the model config
	// option (session/set_config_option).
	NoSetModel bool
	Args       []string
}

// Agent is the scripted agent. Serve runs it over a connection.
type Agent struct {
	opts Options
	conn *acp.AgentSideConnection
	out  *lockedWriter

	mu       sync.Mutex
	sessions map[string]*session
	next     int
}

type session struct {
	ID      string   `json:"id"`
	Prompts []string `json:"prompts"`
	Replies []string `json:"replies"`
	Brief   string   `json:"brief"`
	Mode    string   `json:"mode"`
	MCP     []string `json:"mcp"` // each server session/new or load gave: name and command or URL
	Cwd     string   `json:"cwd"`
	Updated string   `json:"updated"` // RFC 3339, as session/list says it
	// Model is the session's model and ModelVia what set it last:
	// "start", "set_model" or "set_config_option".
	Model    string `json:"model"`
	ModelVia string `json:"model_via"`
	cancel   context.CancelFunc
}

// New makes an agent.
func New(opts Options) *Agent { return &Agent{opts: opts, sessions: map[string]*session{}} }

// Serve speaks ACP over in and out until the peer goes.
func (a *Agent) Serve(in *os.File, out *os.File) {
	a.out = &lockedWriter{w: out}
	a.conn = acp.NewAgentSideConnection(a, a.out, in)
	<-a.conn.Done()
}

var _ acp.Agent = (*Agent)(nil)
var _ acp.AgentLoader = (*Agent)(nil)

func (a *Agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: !a.opts.NoLoad,
			SessionCapabilities: acp.SessionCapabilities{List: &acp.SessionListCapabilities{}}},
		AgentInfo: &acp.Implementation{Name: "troupe-acpagent", Version: "1"}, AuthMethods: []acp.AuthMethod{}}, nil
}

func (a *Agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *Agent) NewSession(_ context.Context, req acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	a.next++
	id := fmt.Sprintf("up-%d-%d", os.Getpid(), a.next)
	s := &session{ID: id, MCP: serverNames(req.McpServers), Cwd: req.Cwd, Updated: time.Now().UTC().Format(time.RFC3339),
		Model: models[0].ID, ModelVia: "start"}
	a.sessions[id] = s
	a.mu.Unlock()
	a.save(s)
	return acp.NewSessionResponse{SessionId: acp.SessionId(id), Models: modelState(s.Model), ConfigOptions: configOptions(s.Model)}, nil
}

// models are the scripted agent's: names only, it answers alike on each.
var models = []struct{ ID, Name string }{{"fast", "Fast"}, {"smart", "Smart"}}

func knownModel(id string) bool {
	return slices.ContainsFunc(models, func(m struct{ ID, Name string }) bool { return m.ID == id })
}

func modelState(current string) *acp.SessionModelState {
	st := &acp.SessionModelState{CurrentModelId: acp.ModelId(current)}
	for _, m := range models {
		st.AvailableModels = append(st.AvailableModels, acp.ModelInfo{ModelId: acp.ModelId(m.ID), Name: m.Name})
	}
	return st
}

func configOptions(current string) []acp.SessionConfigOption {
	var vals acp.SessionConfigSelectOptionsUngrouped
	for _, m := range models {
		vals = append(vals, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m.ID), Name: m.Name})
	}
	cat := acp.SessionConfigOptionCategoryModel
	return []acp.SessionConfigOption{{Select: &acp.SessionConfigOptionSelect{Id: "model", Name: "Model", Type: "select",
		Category: &cat, CurrentValue: acp.SessionConfigValueId(current), Options: acp.SessionConfigSelectOptions{Ungrouped: &vals}}}}
}

// setModel puts session id on model, set by via.
func (a *Agent) setModel(id, model, via string) error {
	if !knownModel(model) {
		return acp.NewInvalidParams(map[string]string{"error": "unknown model " + model})
	}
	s, err := a.load(id)
	if err != nil {
		return acp.NewInvalidParams(map[string]string{"error": err.Error()})
	}
	a.mu.Lock()
	s.Model, s.ModelVia = model, via
	a.mu.Unlock()
	a.save(s)
	return nil
}

// UnstableSetSessionModel is session/set_model, unless NoSetModel.
func (a *Agent) UnstableSetSessionModel(_ context.Context, req acp.UnstableSetSessionModelRequest) (acp.UnstableSetSessionModelResponse, error) {
	if a.opts.NoSetModel {
		return acp.UnstableSetSessionModelResponse{}, acp.NewMethodNotFound("session/set_model")
	}
	return acp.UnstableSetSessionModelResponse{}, a.setModel(string(req.SessionId), string(req.ModelId), "set_model")
}

func (a *Agent) LoadSession(ctx context.Context, req acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if a.opts.NoLoad {
		return acp.LoadSessionResponse{}, acp.NewMethodNotFound("session/load")
	}
	s, err := a.load(string(req.SessionId))
	if err != nil {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]string{"error": err.Error()})
	}
	// ACP: loading replays the conversation to the client.
	for i, p := range s.Prompts {
		a.send(ctx, s.ID, acp.UpdateUserMessageText(p))
		if i < len(s.Replies) {
			a.send(ctx, s.ID, acp.UpdateAgentMessageText(s.Replies[i]))
		}
	}
	a.mu.Lock()
	model := cmp.Or(s.Model, models[0].ID)
	a.mu.Unlock()
	return acp.LoadSessionResponse{Models: modelState(model), ConfigOptions: configOptions(model)}, nil
}

// ListSessions lists the sessions kept in the state directory (those of
// this process too), two a page so that a client follows the cursor; a
// session's title is its first prompt.
func (a *Agent) ListSessions(_ context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	ids := map[string]bool{}
	if a.opts.StateDir != "" {
		files, _ := filepath.Glob(filepath.Join(a.opts.StateDir, "*.json"))
		for _, f := range files {
			ids[strings.TrimSuffix(filepath.Base(f), ".json")] = true
		}
	}
	a.mu.Lock()
	for id := range a.sessions {
		ids[id] = true
	}
	a.mu.Unlock()
	sorted := slices.Sorted(maps.Keys(ids))
	from := 0
	if req.Cursor != nil {
		from, _ = strconv.Atoi(*req.Cursor)
	}
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for i := from; i < len(sorted) && i < from+2; i++ {
		s, err := a.load(sorted[i])
		if err != nil {
			continue
		}
		info := acp.SessionInfo{SessionId: acp.SessionId(s.ID), Cwd: s.Cwd}
		if len(s.Prompts) > 0 {
			info.Title = &s.Prompts[0]
		}
		if s.Updated != "" {
			info.UpdatedAt = &s.Updated
		}
		out.Sessions = append(out.Sessions, info)
	}
	if from+2 < len(sorted) {
		out.NextCursor = new(strconv.Itoa(from + 2))
	}
	return out, nil
}

func (a *Agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound("session/resume")
}

func (a *Agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (a *Agent) SetSessionMode(_ context.Context, req acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[string(req.SessionId)]; s != nil {
		s.Mode = string(req.ModeId)
	}
	return acp.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption sets the model option, the only one it has.
func (a *Agent) SetSessionConfigOption(_ context.Context, req acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	v := req.ValueId
	if v == nil || v.ConfigId != "model" {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]string{"error": "unknown config option"})
	}
	if err := a.setModel(string(v.SessionId), string(v.Value), "set_config_option"); err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: configOptions(string(v.Value))}, nil
}

func (a *Agent) Cancel(_ context.Context, n acp.CancelNotification) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[string(n.SessionId)]; s != nil && s.cancel != nil {
		s.cancel()
	}
	return nil
}

func (a *Agent) Prompt(ctx context.Context, req acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	s := a.sessions[string(req.SessionId)]
	a.mu.Unlock()
	if s == nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]string{"error": "no session " + string(req.SessionId)})
	}
	var texts []string
	for _, b := range req.Prompt {
		if b.Text != nil {
			texts = append(texts, b.Text.Text)
		}
	}
	if len(texts) == 0 {
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}
	script := texts[len(texts)-1]
	turnCtx, cancel := context.WithCancel(ctx)
	a.mu.Lock()
	if len(texts) > 1 {
		s.Brief = strings.Join(texts[:len(texts)-1], "\n")
	}
	s.cancel = cancel
	a.mu.Unlock()
	defer cancel()
	r := &runner{a: a, s: s, ctx: turnCtx}
	resp := r.run(script)
	a.mu.Lock()
	s.Prompts = append(s.Prompts, script)
	s.Replies = append(s.Replies, r.reply.String())
	s.cancel = nil
	a.mu.Unlock()
	a.save(s)
	return resp, nil
}

func (a *Agent) send(ctx context.Context, sid string, u acp.SessionUpdate) {
	_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: acp.SessionId(sid), Update: u})
}

func (a *Agent) path(id string) string {
	return filepath.Join(a.opts.StateDir, strings.NewReplacer("/", "_", "..", "_").Replace(id)+".json")
}

func (a *Agent) save(s *session) {
	if a.opts.StateDir == "" {
		return
	}
	a.mu.Lock()
	b, _ := json.Marshal(s)
	a.mu.Unlock()
	_ = os.WriteFile(a.path(s.ID), b, 0o600)
}

func (a *Agent) load(id string) (*session, error) {
	a.mu.Lock()
	s := a.sessions[id]
	a.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if a.opts.StateDir == "" {
		return nil, errors.New("no such session")
	}
	b, err := os.ReadFile(a.path(id))
	if err != nil {
		return nil, fmt.Errorf("no such session: %w", err)
	}
	s = &session{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if held := a.sessions[id]; held != nil {
		return held, nil
	}
	a.sessions[id] = s
	return s, nil
}

// runner plays one prompt's script.
type runner struct {
	a     *Agent
	s     *session
	ctx   context.Context
	reply strings.Builder
	usage *acp.Usage
}

func (r *runner) say(text string) {
	r.reply.WriteString(text)
	r.a.send(r.ctx, r.s.ID, acp.UpdateAgentMessageText(text))
}

func (r *runner) run(script string) acp.PromptResponse {
	for _, line := range strings.Split(script, "\n") {
		if r.ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		cmd, rest, _ := strings.Cut(line, " ")
		if stop := r.do(cmd, rest, line); stop != "" {
			return acp.PromptResponse{StopReason: stop, Usage: r.usage}
		}
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Usage: r.usage}
}

func (r *runner) do(cmd, rest, line string) acp.StopReason {
	f := strings.Fields(rest)
	switch cmd {
	case "say":
		r.say(rest)
	case "chunks":
		n, _ := strconv.Atoi(first(f))
		if err := r.stream(n, strings.TrimPrefix(rest, first(f)+" ")); err != nil {
			os.Exit(1) // stdout is gone: so is the client
		}
	case "think":
		r.a.send(r.ctx, r.s.ID, acp.UpdateAgentThoughtText(rest))
	case "tool":
		if len(f) < 3 {
			r.say("bad tool line")
			return ""
		}
		r.a.send(r.ctx, r.s.ID, acp.StartToolCall(acp.ToolCallId(f[0]), strings.Join(f[2:], " "),
			acp.WithStartKind(acp.ToolKind(f[1])), acp.WithStartStatus(acp.ToolCallStatusPending),
			acp.WithStartRawInput(map[string]any{"line": line})))
	case "done", "fail":
		st := acp.ToolCallStatusCompleted
		if cmd == "fail" {
			st = acp.ToolCallStatusFailed
		}
		text := strings.TrimPrefix(rest, first(f)+" ")
		r.a.send(r.ctx, r.s.ID, acp.UpdateToolCall(acp.ToolCallId(first(f)), acp.WithUpdateStatus(st),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text))})))
	case "ask":
		r.ask(first(f))
	case "read":
		res, err := r.a.conn.ReadTextFile(r.ctx, acp.ReadTextFileRequest{SessionId: acp.SessionId(r.s.ID), Path: rest})
		if err != nil {
			r.say("read error: " + err.Error())
			return ""
		}
		r.say("read: " + res.Content)
	case "write":
		path := first(f)
		_, err := r.a.conn.WriteTextFile(r.ctx, acp.WriteTextFileRequest{SessionId: acp.SessionId(r.s.ID), Path: path,
			Content: strings.TrimPrefix(rest, path+" ")})
		if err != nil {
			r.say("write error: " + err.Error())
			return ""
		}
		r.say("wrote " + path)
	case "run":
		r.terminal(f)
	case "plan":
		var entries []acp.PlanEntry
		for _, e := range strings.Split(rest, ";") {
			entries = append(entries, acp.PlanEntry{Content: strings.TrimSpace(e), Priority: acp.PlanEntryPriorityMedium, Status: acp.PlanEntryStatusPending})
		}
		r.a.send(r.ctx, r.s.ID, acp.UpdatePlan(entries...))
	case "wait":
		<-r.ctx.Done()
		return acp.StopReasonCancelled
	case "crash":
		os.Exit(3)
	case "usage":
		in, _ := strconv.Atoi(first(f))
		out := 0
		if len(f) > 1 {
			out, _ = strconv.Atoi(f[1])
		}
		r.usage = &acp.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
	case "cost":
		total, _ := strconv.ParseFloat(first(f), 64)
		r.a.send(r.ctx, r.s.ID, acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{SessionUpdate: "usage_update",
			Used: 100, Size: 1000, Cost: &acp.Cost{Amount: total, Currency: "USD"}}})
	case "recall":
		r.a.mu.Lock()
		seen, brief := strings.Join(r.s.Prompts, " | "), r.s.Brief
		r.a.mu.Unlock()
		r.say("seen: " + seen + "\nbrief: " + brief)
	case "mode":
		r.a.mu.Lock()
		mode := r.s.Mode
		r.a.mu.Unlock()
		r.say("mode: " + mode)
	case "model":
		r.a.mu.Lock()
		model, via := r.s.Model, r.s.ModelVia
		r.a.mu.Unlock()
		r.say("model: " + model + " via " + via)
	case "mcp":
		r.a.mu.Lock()
		servers := strings.Join(r.s.MCP, " ")
		r.a.mu.Unlock()
		r.say("mcp: " + servers)
	case "args":
		r.say("args: " + strings.Join(r.a.opts.Args, " "))
	case "pid":
		r.say("pid " + strconv.Itoa(os.Getpid()))
	default:
		r.say("echo: " + line)
	}
	return ""
}

func (r *runner) ask(id string) {
	res, err := r.a.conn.RequestPermission(r.ctx, acp.RequestPermissionRequest{
		SessionId: acp.SessionId(r.s.ID),
		ToolCall:  acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(id), Title: acp.Ptr("run " + id), Kind: acp.Ptr(acp.ToolKindExecute)},
		Options: []acp.PermissionOption{
			{OptionId: "yes", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: "no", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	})
	switch {
	case err != nil:
		r.say("permission error: " + err.Error())
	case res.Outcome.Selected != nil:
		r.say("permission " + id + ": " + string(res.Outcome.Selected.OptionId))
	default:
		r.say("permission " + id + ": cancelled")
	}
}

func (r *runner) terminal(f []string) {
	if len(f) == 0 {
		r.say("run needs a command")
		return
	}
	sid := acp.SessionId(r.s.ID)
	t, err := r.a.conn.CreateTerminal(r.ctx, acp.CreateTerminalRequest{SessionId: sid, Command: f[0], Args: f[1:]})
	if err != nil {
		r.say("terminal error: " + err.Error())
		return
	}
	exit, err := r.a.conn.WaitForTerminalExit(r.ctx, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: t.TerminalId})
	if err != nil {
		r.say("terminal error: " + err.Error())
		return
	}
	out, err := r.a.conn.TerminalOutput(r.ctx, acp.TerminalOutputRequest{SessionId: sid, TerminalId: t.TerminalId})
	if err != nil {
		r.say("terminal error: " + err.Error())
		return
	}
	_, _ = r.a.conn.ReleaseTerminal(r.ctx, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: t.TerminalId})
	code := -1
	if exit.ExitCode != nil {
		code = *exit.ExitCode
	}
	r.say(fmt.Sprintf("exit %d: %s", code, out.Output))
}

// serverNames are MCP servers as "name=command" or "name=url".
func serverNames(servers []acp.McpServer) []string {
	out := []string{}
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			out = append(out, s.Stdio.Name+"="+s.Stdio.Command)
		case s.Http != nil:
			out = append(out, s.Http.Name+"="+s.Http.Url)
		case s.Sse != nil:
			out = append(out, s.Sse.Name+"="+s.Sse.Url)
		}
	}
	return out
}

func first(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
