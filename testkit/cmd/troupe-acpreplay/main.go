// Command troupe-acpreplay is an ACP agent that answers from a recording
// testkit/cmd/troupe-acptee made of a real agent (see
// testkit/agentcompat/acprec.Replay), for the CI test that pins real
// agents' exchanges with troupe without Node:
//
//	troupe-acpreplay RECDIR STATEDIR CWD HOME
//
// RECDIR holds the normalised start-N.jsonl files; STATEDIR receives what
// each start played and read, and mismatches.txt; CWD and HOME are this
// run's session directory and daemon home, written /CWD and /HOME in the
// recording. It starts nothing and reads no file but those.
package main

import (
	"fmt"
	"os"

	"github.com/troupehq/troupe/testkit/agentcompat/acprec"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: troupe-acpreplay RECDIR STATEDIR CWD HOME")
		os.Exit(2)
	}
	rec, state, cwd, home := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	from := acprec.Normaliser{Paths: map[string]string{cwd: "/CWD", home: "/HOME"}}
	to := acprec.Normaliser{Paths: map[string]string{"/CWD": cwd, "/HOME": home}}
	if err := acprec.Replay(rec, state, from, to, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "troupe-acpreplay:", err)
		os.Exit(1)
	}
}
