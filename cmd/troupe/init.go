package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// modelsFile is the home's models configuration.
const modelsFile = "models.yml"

func newInitCmd(a *app) *cobra.Command {
	var common commonFlags
	c := &cobra.Command{
		Use:   "init",
		Short: "write a commented models.yml into the home (never over one)",
		Long: "Write a commented models.yml into the data home: a local llama-server provider, " +
			"an OpenAI-compatible endpoint and a hosted provider to uncomment. An existing file is left as it is.",
		Args: noArgs,
		RunE: a.action(func([]string) int { return runInit(common, a.stdout, a.stderr) }),
	}
	common.register(c.Flags())
	return c
}

func runInit(common commonFlags, stdout, stderr io.Writer) int {
	home, err := datahome.Resolve(common.home, nil)
	if err != nil {
		fmt.Fprintf(stderr, "troupe init: %v\n", err)
		return 1
	}
	path := filepath.Join(home, modelsFile)
	// O_EXCL: a file that exists, made meanwhile too, is never replaced.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(stdout, "%s exists; left as it is\n", path)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "troupe init: %v\n", err)
		return 1
	}
	if _, err := f.Write(modelconfig.Template); err != nil {
		f.Close()
		os.Remove(path)
		fmt.Fprintf(stderr, "troupe init: write %s: %v\n", path, err)
		return 1
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		fmt.Fprintf(stderr, "troupe init: write %s: %v\n", path, err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: a local llama-server provider, other kinds commented out; set default: to use one without --provider/--model\n", path)
	return 0
}
