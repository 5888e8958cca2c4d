package transcript

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/troupehq/troupe/testkit"
)

// Params configures Run.
type Params struct {
	// Dir holds the transcripts, one *.txtar per scenario.
	Dir string
	// Update rewrites each failing `cmp stdout want` with what the run
	// produced (testscript's UpdateScripts); wire it to an -update flag.
	Update bool
	// Vars are values send and expect substitute for $NAME (before the
	// script's environment), kept out of the environment because they may
	// be large: a 100 KB message, say.
	Vars map[string]string
	// Setup, if set, runs after the kit's own setup of each script.
	Setup func(*testscript.Env) error
	// Cmds adds commands to the kit's; a name the kit uses is an error.
	Cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)
}

// Run builds troupe (testkit.BuildTroupe), puts it first on each script's
// PATH and runs every script in p.Dir as a parallel subtest with the kit's
// commands.
func Run(t *testing.T, p Params) {
	t.Helper()
	params, err := p.testscript(filepath.Dir(testkit.BuildTroupe(t)))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, params)
}

// testscript is p as testscript's Params, with bindir (if any) first on
// PATH.
func (p Params) testscript(bindir string) (testscript.Params, error) {
	cmds := Commands()
	for name, cmd := range p.Cmds {
		if _, ok := cmds[name]; ok {
			return testscript.Params{}, fmt.Errorf("transcript: command %q is the kit's", name)
		}
		cmds[name] = cmd
	}
	return testscript.Params{
		Dir:                p.Dir,
		UpdateScripts:      p.Update,
		RequireUniqueNames: true,
		Cmds:               cmds,
		Setup: func(env *testscript.Env) error {
			if bindir != "" {
				env.Setenv("PATH", bindir+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			if err := Setup(env); err != nil {
				return err
			}
			env.Values[stateKey{}].(*script).vars = p.Vars
			if p.Setup != nil {
				return p.Setup(env)
			}
			return nil
		},
	}, nil
}

// Commands returns the kit's commands, for a caller that runs testscript
// itself; such a caller must also call Setup from its Params.Setup.
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return maps.Clone(commands)
}

// Setup prepares one script: a data home in $TROUPE_HOME
// ($WORK/.troupe) and the transcript's state.
func Setup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".troupe")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	env.Setenv("TROUPE_HOME", home)
	s := newScript()
	s.norm.Literal(env.WorkDir, "WORK")
	s.norm.Literal(home, "TROUPE_HOME")
	env.Values[stateKey{}] = s
	env.Defer(s.stop)
	return nil
}
