package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/troupehq/troupe/runtime/agentpkg"
	"github.com/troupehq/troupe/runtime/datahome"
)

func init() {
	register(command{name: "agent", args: "install|list|remove|run ...", summary: "scripted agents (agent.yaml packages): install, list, remove, run", run: runAgent})
}

const agentUsage = `usage:
  troupe agent install [--approve-permissions] [--overwrite] PATH|URL
  troupe agent list [--json]
  troupe agent remove NAME
  troupe agent run [--json] [--cwd DIR] [--timeout D] PATH|NAME [ARGS...]`

func runAgent(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, agentUsage)
		return 2
	}
	switch args[0] {
	case "install":
		return agentInstallCmd(args[1:], stdout, stderr)
	case "list":
		return agentListCmd(args[1:], stdout, stderr)
	case "remove":
		return agentRemoveCmd(args[1:], stdout, stderr)
	case "run":
		return agentRunCmd(args[1:], stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, agentUsage)
		return 0
	}
	fmt.Fprintf(stderr, "troupe agent: unknown subcommand %q\n%s\n", args[0], agentUsage)
	return 2
}

// agentHome parses the common flags and returns the data home.
func agentHome(common commonFlags, stderr io.Writer) (string, bool) {
	home, err := datahome.Resolve(common.home, nil)
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent: %v\n", err)
		return "", false
	}
	return home, true
}

func agentInstallCmd(args []string, stdout, stderr io.Writer) int {
	var common commonFlags
	fs := newFlagSet("agent install", stderr)
	common.register(fs)
	approve := fs.Bool("approve-permissions", false, "approve the permissions the manifest asks for")
	overwrite := fs.Bool("overwrite", false, "replace an installed agent of the same name")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "troupe agent install: want one PATH or URL")
		return 2
	}
	home, ok := agentHome(common, stderr)
	if !ok {
		return 2
	}
	info, err := agentpkg.Install(context.Background(), home, pos[0], agentpkg.InstallOptions{ApprovePermissions: *approve, Overwrite: *overwrite})
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent install: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "installed %s in %s\n", info.Name, info.Path)
	return 0
}

func agentListCmd(args []string, stdout, stderr io.Writer) int {
	var common commonFlags
	fs := newFlagSet("agent list", stderr)
	common.register(fs)
	asJSON := fs.Bool("json", false, "print {agents: [{name, path, version, mode}]}")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "troupe agent list: unexpected arguments %q\n", pos)
		return 2
	}
	home, ok := agentHome(common, stderr)
	if !ok {
		return 2
	}
	list, err := agentpkg.List(home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent list: %v\n", err)
		return 1
	}
	if *asJSON {
		_ = json.NewEncoder(stdout).Encode(map[string]any{"agents": list})
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, a.Version, a.Mode, a.Path)
	}
	_ = tw.Flush()
	return 0
}

func agentRemoveCmd(args []string, stdout, stderr io.Writer) int {
	var common commonFlags
	fs := newFlagSet("agent remove", stderr)
	common.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "troupe agent remove: want one NAME")
		return 2
	}
	home, ok := agentHome(common, stderr)
	if !ok {
		return 2
	}
	if err := agentpkg.Remove(home, pos[0]); err != nil {
		fmt.Fprintf(stderr, "troupe agent remove: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "removed %s\n", pos[0])
	return 0
}
