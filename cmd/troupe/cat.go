package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/transports/agentmcp"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

func newCatCmd(a *app) *cobra.Command {
	var f catFlags
	c := &cobra.Command{
		Use:   "cat [INSTRUCTIONS...]",
		Short: "pipe stdin into a new session of the daemon, print the answer",
		Long: "Pipe stdin into a new non-interactive session of the daemon running on the " +
			"home and print the agent's answer; the session id goes to stderr.\n\n" +
			"Exit status: 0 end of turn; 1 an error or another stop reason; 130 cancelled.",
		RunE: a.action(func(pos []string) int { return runCat(f, pos, a.stdin, a.stdout, a.stderr) }),
	}
	fs := c.Flags()
	f.common.register(fs)
	fs.BoolVar(&f.stream, "stream", false, "stream stdin into the session's stdin ring while the agent reads it through the hydra-acp-stdin MCP tools")
	enumVar(fs, &f.mode, "mode", "memory", []string{"memory", "file"}, "with --stream: keep the ring in memory, or also mirror it to a file")
	fs.Int64Var(&f.capacity, "capacity", 0, "with --stream: bytes the ring keeps in memory (default: the daemon's)")
	fs.Int64Var(&f.fileCap, "file-cap", 0, "with --stream --mode file: soft cap on the mirror file (default: the daemon's)")
	fs.StringVar(&f.title, "title", "", "the session's title")
	return c
}

// catMaxPrompt bounds stdin without --stream: it all goes in one prompt.
const catMaxPrompt = 8 << 20

type catFlags struct {
	common   commonFlags
	stream   bool
	mode     string
	capacity int64
	fileCap  int64
	title    string
}

func runCat(f catFlags, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe cat: %v\n", err)
		return code
	}
	log, err := f.common.logger()
	if err != nil {
		return fail(2, err)
	}
	home, err := datahome.Resolve(f.common.home, log)
	if err != nil {
		return fail(1, err)
	}
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	// Before anything is created: stdin too long for one prompt leaves
	// no empty session behind.
	var piped []byte
	if !f.stream {
		if piped, err = io.ReadAll(io.LimitReader(stdin, catMaxPrompt+1)); err != nil {
			return fail(1, fmt.Errorf("read stdin: %w", err))
		}
		if len(piped) > catMaxPrompt {
			return fail(2, fmt.Errorf("stdin is longer than %d bytes: use --stream", catMaxPrompt))
		}
	}
	c, dc, err := dialDaemon(ctx, home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe cat: %s\n", describe(err, dc))
		return 1
	}
	defer c.close()
	// A signal ends the wait for the answer by closing the connection;
	// the session goes on in the daemon.
	go func() {
		<-ctx.Done()
		c.close()
	}()
	instructions := strings.Join(pos, " ")
	code, err := catSession(ctx, c, f, instructions, piped, stdin, stdout, stderr)
	if err != nil {
		return fail(code, err)
	}
	return code
}

// catSession creates the session, feeds it stdin and prints the answer.
func catSession(ctx context.Context, c *catClient, f catFlags, instructions string, piped []byte, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return 1, fmt.Errorf("working directory: %w", err)
	}
	if err := c.call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "troupe-cat", "version": currentVersion()}}, nil, nil); err != nil {
		return 1, err
	}
	hydra := map[string]any{"interactive": false, "mcpStdin": f.stream}
	if f.title != "" {
		hydra["title"] = f.title
	}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "_meta": map[string]any{"hydra-acp": hydra}}, &created, nil); err != nil {
		return 1, err
	}
	sid := created.SessionID
	fmt.Fprintf(stderr, "troupe cat: session %s\n", sid)
	var text string
	pumped := make(chan error, 1)
	if f.stream {
		open := map[string]any{"mode": f.mode}
		if f.capacity > 0 {
			open["capacityBytes"] = f.capacity
		}
		if f.fileCap > 0 {
			open["fileCapBytes"] = f.fileCap
		}
		if err := c.post(ctx, "/v1/sessions/"+sid+"/stdin/open", open, nil); err != nil {
			return 1, err
		}
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		// The pump's owner is this function: it waits for it below, or
		// cancels it on the way out.
		go func() {
			_, err := pumpStdin(pctx, c, sid, stdin)
			pumped <- err
		}()
		text = streamPrompt(instructions)
	} else {
		text = pipedPrompt(instructions, string(piped))
		pumped <- nil
	}
	var answer struct {
		StopReason string `json:"stopReason"`
	}
	// Machine traffic, as Hydra's cat marks its prompts: it neither titles
	// the session nor makes it interactive.
	prompt := map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}},
		"_meta": map[string]any{"hydra-acp": map[string]any{"ancillary": true}}}
	if err := c.call("session/prompt", prompt, &answer, func(fr jsonrpc.Message) error { return c.onFrame(fr, stdout) }); err != nil {
		return 1, err
	}
	fmt.Fprintln(stdout)
	if err := <-pumped; err != nil {
		return 1, err
	}
	switch answer.StopReason {
	case "end_turn":
		return 0, nil
	case "cancelled":
		return 130, nil
	default:
		return 1, fmt.Errorf("the turn ended: %s", answer.StopReason)
	}
}

func pipedPrompt(instructions, piped string) string {
	if instructions == "" {
		return piped
	}
	return instructions + "\n\n<stdin>\n" + piped + "\n</stdin>"
}

func streamPrompt(instructions string) string {
	note := "Input is being piped into this session and is streaming into your " + agentmcp.StdinServer +
		" MCP server: read it with its tools (info, head, tail, read, grep, wait_for_more), which take absolute byte cursors; " +
		"a read below what is still kept reports the evicted span as a gap."
	if instructions == "" {
		return note
	}
	return instructions + "\n\n" + note
}

// onFrame prints the agent's text and answers permission requests: cat
// has nobody to ask, so it allows the daemon's own read-only servers'
// tools and rejects everything else.
func (c *catClient) onFrame(f jsonrpc.Message, stdout io.Writer) error {
	switch f.Method {
	case "session/update":
		var p struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		}
		if json.Unmarshal(f.Params, &p) == nil && p.Update.SessionUpdate == "agent_message_chunk" {
			_, err := io.WriteString(stdout, p.Update.Content.Text)
			return err
		}
	case "session/request_permission":
		var p struct {
			ToolCall struct {
				Title string `json:"title"`
			} `json:"toolCall"`
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		_ = json.Unmarshal(f.Params, &p)
		want := "reject_once"
		// Titled as Claude Code titles MCP tools, mcp__<server>__<tool>.
		if strings.HasPrefix(p.ToolCall.Title, "mcp__"+agentmcp.StdinServer+"__") || strings.HasPrefix(p.ToolCall.Title, "mcp__"+agentmcp.RecallServer+"__") {
			want = "allow_once"
		}
		for _, o := range p.Options {
			if o.Kind == want {
				return c.respond(f.ID, map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}})
			}
		}
		return c.respond(f.ID, map[string]any{"outcome": map[string]any{"outcome": "cancelled"}})
	}
	return nil
}
