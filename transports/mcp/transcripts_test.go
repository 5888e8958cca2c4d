package mcp_test

import (
	"flag"
	"testing"

	"github.com/troupehq/troupe/testkit/transcript"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/transcripts/*.txtar")

// The end-to-end suite over stdio: each testdata/transcripts/*.txtar
// drives the real troupe mcp against a scripted LLM and holds the
// transcript it must produce. go test -run TestTranscripts -update
// rewrites the transcripts.
func TestTranscripts(t *testing.T) {
	transcript.Run(t, transcript.Params{Dir: "testdata/transcripts", Update: *update})
}
