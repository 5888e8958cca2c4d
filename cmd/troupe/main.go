// Command troupe hosts LLM coding-agent sessions as actors. See `troupe help`.
//
// It owns the command line: flags, what is printed, and exit codes; it
// assembles the runtime from the packages below it and keeps no session
// logic of its own. The command line is one cobra tree (cli.go): each
// command's file builds its command with newXCmd, its flags declared on
// it; the flags many commands share are declared once (commonFlags,
// modelFlags, clientFlags) and registered by the commands that embed them.
package main

import (
	"io"
	"os"
)

func main() {
	stop := profiling()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is one invocation: the flag forms existing hosts spawn, then the
// command tree. It returns the exit status: the command's own, 2 for a
// usage error (no or an unknown command, a bad flag or argument), 0 for
// help.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, args: args}
	root := newRoot(a)
	root.SetArgs(hostForms(root, args))
	c, err := root.ExecuteC()
	if err != nil {
		return a.usageError(c, err)
	}
	return a.code
}
