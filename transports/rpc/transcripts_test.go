package rpc_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit/transcript"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/transcripts/*.txtar")

// The end-to-end suite: each testdata/transcripts/*.txtar drives the real
// troupe --mode rpc against a scripted LLM and holds the transcript it must
// produce (see testkit/transcript for the commands and the normalisation).
// go test -run TestTranscripts -update rewrites the transcripts.
func TestTranscripts(t *testing.T) {
	transcript.Run(t, transcript.Params{
		Dir:    "testdata/transcripts",
		Update: *update,
		Vars:   map[string]string{"BIG": big},
	})
}

// big is a message of about 25,000 estimated tokens, more than compaction
// keeps by default; scripts send it as $BIG.
var big = strings.Repeat("lorem ipsum ", 8500)
