package main

import (
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
)

func newDoctorCmd(a *app) *cobra.Command {
	var common commonFlags
	c := &cobra.Command{
		Use:   "doctor",
		Short: "check the home, store, models and programs; say what to fix",
		Long: "Check the data home without changing it: its permissions, the store's integrity (read-only) " +
			"and its write-ahead log, models.yml and whether each provider answers, llama-server and the llama " +
			"configs, the configured agents and extensions. Each problem is printed with what to fix; the exit " +
			"status is 1 when something is broken, 0 otherwise (warnings included).",
		Args: noArgs,
		RunE: a.action(func([]string) int { return runDoctor(common, os.Getenv, a.stdout, a.stderr) }),
	}
	common.register(c.Flags())
	return c
}

// Severities of a doctor's finding.
const (
	sevOK = iota
	sevWarn
	sevProblem
)

// report collects the findings and prints each as it comes.
type report struct {
	w        io.Writer
	problems int
	warnings int
}

func (r *report) add(sev int, what, fix string) {
	tag := map[int]string{sevOK: "ok     ", sevWarn: "warning", sevProblem: "PROBLEM"}[sev]
	fmt.Fprintf(r.w, "%s  %s\n", tag, what)
	if fix != "" {
		fmt.Fprintf(r.w, "         fix: %s\n", fix)
	}
	switch sev {
	case sevProblem:
		r.problems++
	case sevWarn:
		r.warnings++
	}
}

func (r *report) ok(what string)           { r.add(sevOK, what, "") }
func (r *report) warn(what, fix string)    { r.add(sevWarn, what, fix) }
func (r *report) problem(what, fix string) { r.add(sevProblem, what, fix) }

// doctor is one run of the checks on one home.
type doctor struct {
	home   string
	getenv func(string) string
	r      *report
}

func runDoctor(common commonFlags, getenv func(string) string, stdout, stderr io.Writer) int {
	// Path, not Resolve: the doctor looks at the home as it is, and
	// Resolve would create it or tighten its permissions first.
	home, err := datahome.Path(common.home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe doctor: %v\n", err)
		return 1
	}
	d := doctor{home: home, getenv: getenv, r: &report{w: stdout}}
	fmt.Fprintf(stdout, "troupe doctor: home %s\n", home)
	if d.checkHome() {
		ctx := context.Background()
		d.checkStore(ctx)
		d.checkModels(ctx)
		d.checkLlama()
		d.checkAgents(ctx)
		d.checkExtensions()
	}
	switch {
	case d.r.problems > 0:
		fmt.Fprintf(stdout, "%d problem(s), %d warning(s)\n", d.r.problems, d.r.warnings)
		return 1
	case d.r.warnings > 0:
		fmt.Fprintf(stdout, "no problem, %d warning(s)\n", d.r.warnings)
	default:
		fmt.Fprintln(stdout, "no problem")
	}
	return 0
}

// checkHome says whether the home exists and is troupe's to use, and
// names what in it other local users can read.
func (d *doctor) checkHome() bool {
	fi, err := os.Stat(d.home)
	if errors.Is(err, fs.ErrNotExist) {
		d.r.warn("the home does not exist yet", "run `troupe init` (or any troupe command) to create it")
		return false
	}
	if err != nil {
		d.r.problem(fmt.Sprintf("the home cannot be read: %v", err), "check the path given by --home or $TROUPE_HOME")
		return false
	}
	if !fi.IsDir() {
		d.r.problem("the home is not a directory", "point --home or $TROUPE_HOME at a directory, or move the file away")
		return false
	}
	if err := writable(d.home); err != nil {
		d.r.problem(fmt.Sprintf("the home is not writable by you: %v", err), "chmod u+rwx "+d.home+" (or chown it to you)")
	}
	open := openToOthers(d.home)
	switch {
	case len(open) == 0:
		d.r.ok("the home is private to you")
	default:
		shown := open[:min(len(open), 3)]
		d.r.problem(fmt.Sprintf("%d entries in the home are open to other local users: %s", len(open), strings.Join(shown, ", ")),
			"chmod -R go-rwx "+d.home+" (the store and the daemon's credentials are in it; troupe tightens it at its next start)")
	}
	return true
}

// openToOthers lists the entries under home (not following links) whose
// mode gives group or others any permission, with their modes.
func openToOthers(home string) []string {
	var open []string
	_ = filepath.WalkDir(home, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		if info.Mode().Perm()&0o077 != 0 {
			rel, _ := filepath.Rel(home, path)
			open = append(open, fmt.Sprintf("%s (%04o)", rel, info.Mode().Perm()))
		}
		return nil
	})
	return open
}
