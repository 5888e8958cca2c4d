package tools

import (
	"context"
	"testing"
)

// BenchmarkBashEcho is one bash call's overhead: start the shell in its own
// process group (under the death watcher on Linux), run `echo hi`, collect.
func BenchmarkBashEcho(b *testing.B) {
	call := Call{Cwd: b.TempDir(), Args: []byte(`{"command":"echo hi"}`)}
	for b.Loop() {
		res, err := Bash{}.Run(context.Background(), call, nil)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
