package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/runtime/modelconfig"
	"github.com/troupehq/troupe/transports/jsonstream"
	"github.com/troupehq/troupe/transports/stdio"
)

func init() {
	register(command{
		name: "json-stream", args: "[flags]", summary: "speak the aionrs JSON stream protocol on stdin/stdout (also --json-stream)",
		run: runJSONStream, match: matchJSONStreamFlag("--json-stream"),
	})
}

// matchJSONStreamFlag recognises a flag-form command anywhere in the args and
// removes it, since hosts put it among their other flags.
func matchJSONStreamFlag(flag string) func([]string) ([]string, bool) {
	return func(args []string) ([]string, bool) {
		i := slices.Index(args, flag)
		if i < 0 {
			return nil, false
		}
		return slices.Delete(slices.Clone(args), i, i+1), true
	}
}

type jsonStreamFlags struct {
	common                            commonFlags
	provider, model, baseURL, apiKey  string
	systemPrompt, workspace, thinking string
	sessionID, resume                 string
	maxTokens, maxTurns, maxLine      int
	autoApprove                       bool
}

func runJSONStream(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f jsonStreamFlags
	fs := newFlagSet("json-stream", stderr)
	f.common.register(fs)
	for _, n := range []string{"provider", "p"} {
		fs.StringVar(&f.provider, n, "", "provider name from models.yml, or openai")
	}
	for _, n := range []string{"model", "m"} {
		fs.StringVar(&f.model, n, "", "model id")
	}
	for _, n := range []string{"base-url", "b"} {
		fs.StringVar(&f.baseURL, n, "", "override the provider's base URL")
	}
	for _, n := range []string{"api-key", "k"} {
		fs.StringVar(&f.apiKey, n, "", "override the provider's API key")
	}
	for _, n := range []string{"workspace", "project-dir"} {
		fs.StringVar(&f.workspace, n, "", "working directory for file operations (default: current)")
	}
	fs.StringVar(&f.systemPrompt, "system-prompt", "", "system prompt (default: troupe's)")
	enumVar(fs, &f.thinking, "thinking", "", thinkingLevels(), "thinking level; default: the model's")
	fs.StringVar(&f.sessionID, "session-id", "", "start a new session with this id (fails if it exists)")
	fs.StringVar(&f.resume, "resume", "", "resume a session: an id, or latest (newest of the workspace)")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "cap on each reply's tokens")
	fs.IntVar(&f.maxTurns, "max-turns", 20, "LLM calls per message before asking for a final answer")
	fs.IntVar(&f.maxLine, "max-line", stdio.DefaultMaxLine, "largest accepted input line in bytes")
	fs.BoolVar(&f.autoApprove, "auto-approve", false, "start in yolo mode: run every tool without asking")
	out := json.NewEncoder(stdout)
	// Before the writer actor exists nothing else writes stdout, so a
	// fatal configuration error goes out directly, as the spec asks.
	configError := func(err error) int {
		_ = out.Encode(jsonstream.NewError("", jsonstream.CodeConfig, err.Error(), false))
		fmt.Fprintf(stderr, "troupe json-stream: %v\n", err)
		return 2
	}
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return configError(err)
	}
	if len(pos) > 0 {
		return configError(fmt.Errorf("unexpected arguments %q", pos))
	}
	if f.sessionID != "" && f.resume != "" {
		return configError(errors.New("--session-id and --resume are mutually exclusive"))
	}
	log, err := logging.New(logging.Options{Level: f.common.logLevel, Format: f.common.logFormat})
	if err != nil {
		return configError(err)
	}
	home, err := datahome.Resolve(f.common.home, log)
	if err != nil {
		return configError(err)
	}
	if f.workspace == "" {
		f.workspace, _ = os.Getwd()
	}
	// Sessions are listed by their directory, so --resume latest must see
	// the same spelling as the session that was created.
	if abs, err := filepath.Abs(f.workspace); err == nil {
		f.workspace = abs
	}
	mode := event.ApprovalDefault
	if f.autoApprove {
		mode = event.ApprovalYolo
	}
	eng, err := engine.New(engine.Options{
		Home: home, Thinking: f.thinking, Mode: mode, MaxSteps: f.maxTurns, AutoRetry: true, SystemPrompt: f.systemPrompt,
		Selection: modelconfig.Selection{Provider: f.provider, Model: f.model, BaseURL: f.baseURL, APIKey: f.apiKey, MaxTokens: f.maxTokens},
	})
	local := &actors.LazyServers{} // --provider llama: the home's llama-server configs
	if err == nil {
		eng.SetLocalServers(local)
		err = eng.Check()
	}
	if err != nil {
		return configError(err)
	}
	rt, err := actors.Start(actors.Options{Home: home, Logger: log, Engine: eng.Session(), Command: "troupe --json-stream", TransportMiddleware: transportFaults()})
	if err != nil {
		return configError(err)
	}
	local.Bind(rt)
	ctx, stopSignals := actors.NotifyShutdown(context.Background(), log)
	defer stopSignals()
	cfg, err := jsonStreamConfig(rt, f, stdin, stdout)
	if err != nil {
		code := configError(err)
		if err := shutdown(rt); err != nil {
			fmt.Fprintf(stderr, "troupe json-stream: %v\n", err)
		}
		return code
	}
	d, err := serveTransport(ctx, rt, jsonstream.Props(cfg), "json-stream")
	if d.Err != nil {
		// The transport and its writer have stopped: stdout is the
		// command's again, and the host is told in the protocol's shape.
		_ = out.Encode(jsonstream.NewError("", jsonstream.CodeInternal, d.Err.Error(), false))
	}
	return exitStatus(d, err, func(err error) { fmt.Fprintf(stderr, "troupe json-stream: %v\n", err) })
}

// jsonStreamConfig picks or creates the session and reads where the
// conversation starts.
func jsonStreamConfig(rt *actors.Runtime, f jsonStreamFlags, stdin io.Reader, stdout io.Writer) (jsonstream.Config, error) {
	bg := context.Background()
	id, err := jsonStreamSession(bg, rt, f)
	if err != nil {
		return jsonstream.Config{}, err
	}
	// What was committed before the session wakes was shown by an earlier
	// process; waking may continue a run a crash interrupted, from here.
	meta, err := rt.Sessions.Meta(bg, id)
	if err != nil {
		return jsonstream.Config{}, err
	}
	if f.autoApprove && f.resume != "" {
		yolo := event.ApprovalYolo
		if _, err := rt.Sessions.SetMode(bg, id, yolo); err != nil {
			return jsonstream.Config{}, err
		}
	}
	st, err := rt.Sessions.State(bg, id)
	if err != nil {
		return jsonstream.Config{}, err
	}
	mode := event.ApprovalDefault
	if f.autoApprove {
		mode = event.ApprovalYolo
	}
	mode = cmp.Or(lo.FromPtr(st.Settings.ApprovalMode), mode)
	return jsonstream.Config{
		SessionID: id, Sessions: rt.Sessions, From: meta.LastSeq + 1, Mode: mode,
		Input: stdin, MaxLine: f.maxLine, Out: stdout,
	}, nil
}

// jsonStreamSession picks or creates the session: --session-id must be
// new, --resume must exist (latest: the workspace's newest).
func jsonStreamSession(ctx context.Context, rt *actors.Runtime, f jsonStreamFlags) (string, error) {
	switch {
	case f.resume == "latest":
		list, err := rt.Sessions.List(ctx, f.workspace)
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "", fmt.Errorf("no session to resume in %s", f.workspace)
		}
		return list[0].ID, nil
	case f.resume != "":
		if _, err := rt.Sessions.Meta(ctx, f.resume); err != nil {
			return "", fmt.Errorf("resume %s: %w", f.resume, err)
		}
		return f.resume, nil
	}
	id := f.sessionID
	if id == "" {
		id = sessions.NewID()
	} else if _, err := rt.Sessions.Meta(ctx, id); err == nil {
		return "", fmt.Errorf("session %s already exists", id)
	} else if !errors.Is(err, sessions.ErrNotFound) {
		return "", err
	}
	policy := event.CrashResume
	settings := event.Settings{CrashPolicy: &policy}
	if f.autoApprove {
		yolo := event.ApprovalYolo
		settings.ApprovalMode = &yolo
	}
	err := rt.Sessions.Create(ctx, id, event.CreatedPayload{Cwd: f.workspace, OriginTransport: "json-stream", OriginClient: "aionrs", Settings: settings})
	if err != nil {
		return "", fmt.Errorf("create session %s: %w", id, err)
	}
	return id, nil
}
