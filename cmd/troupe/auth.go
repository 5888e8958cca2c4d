package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/transports/daemon"
	"golang.org/x/term"
)

func init() {
	register(command{
		name: "auth", args: "password",
		summary: "set the daemon's master password (read from stdin; stores only a bcrypt hash)",
		run:     runAuth,
	})
}

func runAuth(args []string, stdin io.Reader, _, stderr io.Writer) int {
	var common commonFlags
	fs := newFlagSet("auth", stderr)
	common.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if len(pos) != 1 || pos[0] != "password" {
		fmt.Fprintln(stderr, "usage: troupe auth password  (the password is read from stdin)")
		return 2
	}
	home, err := datahome.Resolve(common.home, nil)
	if err != nil {
		fmt.Fprintf(stderr, "troupe auth: %v\n", err)
		return 1
	}
	pw, err := readPassword(stdin, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "troupe auth: %v\n", err)
		return 1
	}
	if err := daemon.SetPassword(home, pw); err != nil {
		fmt.Fprintf(stderr, "troupe auth: %v\n", err)
		return 1
	}
	fmt.Fprintln(stderr, "troupe auth: master password set; a running daemon uses it at the next login")
	return 0
}

// readPassword reads one line: without echo from a terminal, else as is.
func readPassword(stdin io.Reader, stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "master password: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		return string(b), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
