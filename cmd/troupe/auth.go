package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/transports/daemon"
	"golang.org/x/term"
)

func newAuthCmd(a *app) *cobra.Command {
	var common commonFlags
	c := &cobra.Command{
		Use:       "auth password",
		Short:     "set the daemon's master password (read from stdin)",
		Long:      "Set the daemon's master password: read from stdin (on a terminal, twice, without echo), only its bcrypt hash is stored.",
		ValidArgs: []string{"password"},
		RunE:      a.action(func(pos []string) int { return runAuth(common, pos, a.stdin, a.stderr) }),
	}
	common.register(c.Flags())
	return c
}

func runAuth(common commonFlags, pos []string, stdin io.Reader, stderr io.Writer) int {
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

// readPassword reads one line: from a terminal twice without echo, the
// second time to confirm (a typo there would lock the user out), else as
// is.
func readPassword(stdin io.Reader, stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		ask := func(prompt string) (string, error) { return askPassword(f, stderr, prompt) }
		if restore, ok := withoutEcho(int(f.Fd())); ok {
			defer restore()
			lines := bufio.NewReader(f)
			ask = func(prompt string) (string, error) { return askLine(lines, stderr, prompt) }
		}
		pw, err := ask("master password: ")
		if err != nil {
			return "", err
		}
		again, err := ask("repeat it: ")
		if err != nil {
			return "", err
		}
		if pw != again {
			return "", errors.New("the two passwords differ; nothing was set")
		}
		return pw, nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// askLine prompts for one line of a terminal whose echo is off.
func askLine(r *bufio.Reader, stderr io.Writer, prompt string) (string, error) {
	fmt.Fprint(stderr, prompt)
	line, err := r.ReadString('\n')
	fmt.Fprintln(stderr)
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// askPassword prompts on stderr and reads a line from the terminal
// without echo.
func askPassword(f *os.File, stderr io.Writer, prompt string) (string, error) {
	fmt.Fprint(stderr, prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(stderr)
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	return string(b), nil
}
