package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
		Short: "write a commented models.yml from what is found here",
		Long: "Write a commented models.yml into the data home from what this machine offers: the server " +
			"$OPENAI_BASE_URL names, a llama-server answering on 127.0.0.1:8080 (each with the models it lists), " +
			"the home's llama configs, and hosted providers whose keys the environment holds (commented out). " +
			"With nothing found, a local llama-server provider and examples to uncomment. An existing file is left as it is.",
		Args: noArgs,
		RunE: a.action(func([]string) int { return runInit(common, os.Getenv, a.stdout, a.stderr) }),
	}
	common.register(c.Flags())
	return c
}

func runInit(common commonFlags, getenv func(string) string, stdout, stderr io.Writer) int {
	home, err := datahome.Resolve(common.home, nil)
	if err != nil {
		fmt.Fprintf(stderr, "troupe init: %v\n", err)
		return 1
	}
	path := filepath.Join(home, modelsFile)
	if _, err := os.Lstat(path); err == nil {
		fmt.Fprintf(stdout, "%s exists; left as it is\n", path)
		return 0
	}
	found := scanForInit(context.Background(), home, getenv)
	text := modelconfig.Template
	if !found.empty() {
		text = []byte(renderModels(found))
		// What init writes must load: a finding that breaks the file is
		// troupe's bug, never the user's to fix.
		if _, err := modelconfig.Parse(text, path); err != nil {
			fmt.Fprintf(stderr, "troupe init: the models.yml written from what was found does not load: %v\n", err)
			return 1
		}
	}
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
	if _, err := f.Write(text); err != nil {
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
	if found.empty() {
		fmt.Fprintf(stdout, "wrote %s: a local llama-server provider, other kinds commented out; set default: to use one without --provider/--model\n", path)
		return 0
	}
	fmt.Fprintf(stdout, "wrote %s from what was found:\n", path)
	reportFindings(stdout, found)
	return 0
}

// reportFindings says, a line each, what troupe init found and wrote.
func reportFindings(w io.Writer, f findings) {
	server := func(what, provider string, s *server) {
		switch {
		case len(s.models) > 0:
			fmt.Fprintf(w, "  %s: provider %s, models %s\n", what, provider, strings.Join(s.models, ", "))
		case s.err != nil:
			fmt.Fprintf(w, "  %s: provider %s; its models could not be listed (%v): name one under providers.%s.models\n", what, provider, s.err, provider)
		default:
			fmt.Fprintf(w, "  %s: provider %s; it lists no models: name one under providers.%s.models\n", what, provider, provider)
		}
	}
	if f.endpoint != nil {
		server("$OPENAI_BASE_URL "+f.endpoint.baseURL, "endpoint", f.endpoint)
	}
	if f.llama != nil {
		server("a llama-server on 127.0.0.1:8080", "local", f.llama)
	}
	if len(f.configs) > 0 {
		fmt.Fprintf(w, "  llama configs: %s (--provider llama --model NAME)\n", strings.Join(f.configs, ", "))
	}
	for _, k := range f.keys {
		fmt.Fprintf(w, "  %s credentials: provider %s, commented out (uncomment it to use it)\n", cmp.Or(k.env, "AWS"), k.name)
	}
	if f.endpoint != nil && len(f.endpoint.models) > 0 || f.llama != nil && len(f.llama.models) > 0 {
		fmt.Fprintln(w, "  the default is the first model listed: `troupe run \"hello\"` uses it")
	}
}

// firstUseHint follows an error that no model is configured, in a home
// with no models.yml: troupe init is what a first run wants.
func firstUseHint(w io.Writer, home string, err error) {
	if !errors.Is(err, modelconfig.ErrIncomplete) && !errors.Is(err, modelconfig.ErrUnknownProvider) {
		return
	}
	if _, serr := os.Stat(filepath.Join(home, modelsFile)); !errors.Is(serr, fs.ErrNotExist) {
		return
	}
	fmt.Fprintln(w, initHint(home))
}

// initHint is the first-use hint: what troupe init does for a home with
// no models.yml.
func initHint(home string) string {
	return "hint: " + home + " has no models.yml yet: `troupe init` writes one from what it finds here " +
		"($OPENAI_BASE_URL, a llama-server on 127.0.0.1:8080, llama configs, provider keys); `troupe doctor` checks the setup"
}

// daemonFirstUseHint tells a daemon starting on a home with no models.yml,
// no --provider and no OpenAI-compatible environment that its sessions
// have no model to prompt until troupe init (or a flag) gives them one.
func daemonFirstUseHint(w io.Writer, home string, sel modelconfig.Selection, getenv func(string) string) {
	if sel.Provider != "" || sel.Model != "" || getenv(modelconfig.EnvOpenAIBaseURL) != "" || getenv(modelconfig.EnvOpenAIAPIKey) != "" {
		return
	}
	if _, err := os.Stat(filepath.Join(home, modelsFile)); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	fmt.Fprintf(w, "troupe daemon: no model is configured, so sessions cannot prompt one yet\n%s\n", initHint(home))
}
