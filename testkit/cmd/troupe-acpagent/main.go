// Command troupe-acpagent is the test kit's scripted ACP agent over stdio
// (see testkit/acpagent for its script). Its state directory is
// $ACPAGENT_STATE; ACPAGENT_NOLOAD=1 turns session/load off. Its
// arguments are only reported (the "args" command).
package main

import (
	"os"

	"github.com/troupehq/troupe/testkit/acpagent"
)

func main() {
	a := acpagent.New(acpagent.Options{StateDir: os.Getenv("ACPAGENT_STATE"), NoLoad: os.Getenv("ACPAGENT_NOLOAD") == "1",
		NoSetModel: os.Getenv("ACPAGENT_NO_SET_MODEL") == "1", Args: os.Args[1:]})
	a.Serve(os.Stdin, os.Stdout)
}
