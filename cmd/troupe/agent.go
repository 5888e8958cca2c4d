package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/runtime/agentpkg"
	"github.com/troupehq/troupe/runtime/datahome"
)

// newAgentCmd is `troupe agent`: the common flags are the subtree's.
func newAgentCmd(a *app) *cobra.Command {
	var common commonFlags
	c := a.group(&cobra.Command{
		Use:   "agent",
		Short: "scripted agents (agent.yaml packages): install, list, remove, run",
	})
	common.register(c.PersistentFlags())
	c.AddCommand(newAgentInstallCmd(a, &common), newAgentListCmd(a, &common), newAgentRemoveCmd(a, &common), newAgentRunCmd(a, &common))
	return c
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

func newAgentInstallCmd(a *app, common *commonFlags) *cobra.Command {
	var approve, overwrite bool
	c := &cobra.Command{
		Use:   "install PATH|URL",
		Short: "install an agent package from a folder or a URL",
		Args:  wantArgs(1, 1, "one PATH or URL"),
		RunE: a.action(func(pos []string) int {
			return agentInstallCmd(*common, pos[0], agentpkg.InstallOptions{ApprovePermissions: approve, Overwrite: overwrite}, a.stdout, a.stderr)
		}),
	}
	c.Flags().BoolVar(&approve, "approve-permissions", false, "approve the permissions the manifest asks for")
	c.Flags().BoolVar(&overwrite, "overwrite", false, "replace an installed agent of the same name")
	return c
}

func agentInstallCmd(common commonFlags, src string, opts agentpkg.InstallOptions, stdout, stderr io.Writer) int {
	home, ok := agentHome(common, stderr)
	if !ok {
		return 2
	}
	info, err := agentpkg.Install(context.Background(), home, src, opts)
	switch {
	case errors.Is(err, agentpkg.ErrPermissionsNotApproved):
		fmt.Fprintf(stderr, "troupe agent install: %v (pass --approve-permissions)\n", err)
		return 1
	case errors.Is(err, agentpkg.ErrAlreadyInstalled):
		fmt.Fprintf(stderr, "troupe agent install: %v (pass --overwrite to replace it)\n", err)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "troupe agent install: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "installed %s in %s\n", info.Name, info.Path)
	return 0
}

func newAgentListCmd(a *app, common *commonFlags) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "the installed agents: name, version, mode, path",
		Args:  noArgs,
		RunE:  a.action(func([]string) int { return agentListCmd(*common, asJSON, a.stdout, a.stderr) }),
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print {agents: [{name, path, version, mode}]}")
	return c
}

func agentListCmd(common commonFlags, asJSON bool, stdout, stderr io.Writer) int {
	home, ok := agentHome(common, stderr)
	if !ok {
		return 2
	}
	list, err := agentpkg.List(home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent list: %v\n", err)
		return 1
	}
	if asJSON {
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

func newAgentRemoveCmd(a *app, common *commonFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "remove an installed agent",
		Args:  wantArgs(1, 1, "one NAME"),
		RunE:  a.action(func(pos []string) int { return agentRemoveCmd(*common, pos[0], a.stdout, a.stderr) }),
	}
}

func agentRemoveCmd(common commonFlags, name string, stdout, stderr io.Writer) int {
	home, ok := agentHome(common, stderr)
	if !ok {
		return 2
	}
	if err := agentpkg.Remove(home, name); err != nil {
		fmt.Fprintf(stderr, "troupe agent remove: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "removed %s\n", name)
	return 0
}
