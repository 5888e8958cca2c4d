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

	"github.com/troupehq/troupe/runtime/boot"
	"github.com/troupehq/troupe/transports/daemon"
)

// runSessionLocal is a minimal `troupe session` that knows attach only,
// until the full dispatcher (every subcommand, the shared daemon client)
// replaces it.
func runSessionLocal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "attach" {
		fmt.Fprintln(stderr, "troupe session: usage: troupe session attach ID [--readonly] [--from-start | --new-only] [--url URL --token TOKEN] [--home DIR]")
		return 2
	}
	url, token, home, rest, err := splitDaemonFlags(args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "troupe session attach: %v\n", err)
		return 2
	}
	if url == "" || token == "" {
		u, tok, err := findDaemon(home)
		if err != nil {
			fmt.Fprintf(stderr, "troupe: %v\n", err)
			return 1
		}
		url = cmp.Or(url, u)
		token = cmp.Or(token, tok)
	}
	return runSessionAttach(context.Background(), url, token, rest, stdin, stdout, stderr)
}

// splitDaemonFlags takes --url, --token and --home (as `--f V` or `--f=V`)
// out of args.
func splitDaemonFlags(args []string) (url, token, home string, rest []string, err error) {
	vals := map[string]*string{"url": &url, "token": &token, "home": &home}
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		dst, ok := vals[name]
		if !ok || !strings.HasPrefix(args[i], "-") {
			rest = append(rest, args[i])
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return "", "", "", nil, fmt.Errorf("flag needs an argument: -%s", name)
			}
			i++
			val = args[i]
		}
		*dst = val
	}
	return url, token, home, rest, nil
}

// findDaemon reads the running daemon's address and service token from
// the home.
func findDaemon(homeFlag string) (url, token string, err error) {
	home, err := boot.HomePath(homeFlag)
	if err != nil {
		return "", "", err
	}
	addr, err := os.ReadFile(filepath.Join(home, daemon.AddrFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("no daemon is running for %s; start one with `troupe daemon start` (or pass --url and --token)", home)
	}
	if err != nil {
		return "", "", fmt.Errorf("read the daemon's address: %w", err)
	}
	tok, err := os.ReadFile(filepath.Join(home, daemon.TokenFile))
	if err != nil {
		return "", "", fmt.Errorf("read the daemon's token (pass --token): %w", err)
	}
	return strings.TrimSpace(string(addr)), strings.TrimSpace(string(tok)), nil
}
