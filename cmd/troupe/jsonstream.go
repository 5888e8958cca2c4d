package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/samber/lo"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/modelconfig"
	"github.com/troupehq/troupe/transports/jsonstream"
	"github.com/troupehq/troupe/transports/stdio"
)

// matchJSONStreamFlag recognises a flag-form command anywhere in the args and
// removes it, since hosts put it among their other flags (hostForms).
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

func newJSONStreamCmd(a *app) *cobra.Command {
	var f jsonStreamFlags
	c := &cobra.Command{
		Use:   "json-stream",
		Short: "the aionrs JSON stream on stdin/stdout (also: --json-stream)",
		Long: "Speak the aionrs JSON stream protocol on stdin/stdout. Hosts spawn it as " +
			"`troupe --json-stream`, which is the same command.",
		RunE: a.action(func([]string) int { return runJSONStream(f, a.stdin, a.stdout, a.stderr) }),
	}
	// A refused flag or argument is a configuration error, which the
	// protocol says is also told on stdout.
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		err = a.flagError(c, err)
		jsonStreamConfigError(a.stdout, err)
		return err
	})
	c.Args = func(c *cobra.Command, pos []string) error {
		if err := noArgs(c, pos); err != nil {
			jsonStreamConfigError(a.stdout, err)
			return err
		}
		return nil
	}
	fs := c.Flags()
	f.common.register(fs)
	// aionrs's short forms, and its --project-dir for --workspace.
	fs.StringVarP(&f.provider, "provider", "p", "", "provider: openai, anthropic, google, bedrock, vertex, or a name from models.yml")
	fs.StringVarP(&f.model, "model", "m", "", "model id")
	fs.StringVarP(&f.baseURL, "base-url", "b", "", "override the provider's base URL")
	fs.StringVarP(&f.apiKey, "api-key", "k", "", "override the provider's API key")
	fs.StringVar(&f.workspace, "workspace", "", "working directory for file operations (default: current; also --project-dir)")
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "project-dir" {
			name = "workspace"
		}
		return pflag.NormalizedName(name)
	})
	fs.StringVar(&f.systemPrompt, "system-prompt", "", "system prompt (default: troupe's)")
	enumVar(fs, &f.thinking, "thinking", "", thinkingLevels(), "thinking level; default: the model's")
	fs.StringVar(&f.sessionID, "session-id", "", "start a new session with this id (fails if it exists)")
	fs.StringVar(&f.resume, "resume", "", "resume a session: an id, or latest (newest of the workspace)")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "cap on each reply's tokens")
	fs.IntVar(&f.maxTurns, "max-turns", 20, "LLM calls per message before asking for a final answer")
	fs.IntVar(&f.maxLine, "max-line", stdio.DefaultMaxLine, "largest accepted input line in bytes")
	fs.BoolVar(&f.autoApprove, "auto-approve", false, "start in yolo mode: run every tool without asking")
	return c
}

// jsonStreamConfigError is a fatal configuration error on stdout, in the
// protocol's shape: before the writer actor exists nothing else writes
// stdout, so it goes out directly, as the spec asks.
func jsonStreamConfigError(stdout io.Writer, err error) {
	_ = json.NewEncoder(stdout).Encode(jsonstream.NewError("", jsonstream.CodeConfig, err.Error(), false))
}

func runJSONStream(f jsonStreamFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	out := json.NewEncoder(stdout)
	configError := func(err error) int {
		jsonStreamConfigError(stdout, err)
		fmt.Fprintf(stderr, "troupe json-stream: %v\n", err)
		return 2
	}
	if f.sessionID != "" && f.resume != "" {
		return configError(errors.New("--session-id and --resume are mutually exclusive"))
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
	h, err := startHost(f.common, hostSetup{Command: "troupe --json-stream", Check: true, Faults: true, Engine: engine.Options{
		Thinking: f.thinking, Mode: mode, MaxSteps: f.maxTurns, AutoRetry: true, SystemPrompt: f.systemPrompt,
		Selection: modelconfig.Selection{Provider: f.provider, Model: f.model, BaseURL: f.baseURL, APIKey: f.apiKey, MaxTokens: f.maxTokens},
	}})
	if err != nil {
		return configError(err) // every failure to start is a config_error here
	}
	defer h.stop()
	rt, ctx := h.rt, h.ctx
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
