package pipeline

import (
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// A deleted session's chain does not outlive it in the pipeline.
func TestPipelineForgetsDeletedSessionChain(t *testing.T) {
	p := New()
	p.RestoreChain("s1", []string{"tr"})
	p.RestoreChain("s2", []string{"tr"})
	p.SessionGone("s1")
	testkit.Equal(t, len(p.ChainOf("s1")), 0)
	testkit.Equal(t, len(p.ChainOf("s2")), 1)
}
