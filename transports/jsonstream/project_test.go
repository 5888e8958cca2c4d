package jsonstream

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/troupehq/troupe/transports/projection/projectiontest"
)

// The projector's table: each log of projectiontest in, the protocol's
// lines out (testdata/projection/NAME.golden). A process started after a
// crash shows only what follows the case's Resumed seq, as the transport
// subscribes from the seq after the last one a process showed.
func TestProjectCases(t *testing.T) {
	projectiontest.Run(t, func(t *testing.T, c projectiontest.Case) []string {
		p := NewProjector("default")
		var lines []string
		for _, e := range c.Log.Events {
			if e.Seq <= c.Resumed {
				continue
			}
			for _, v := range p.Project(e) {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, string(b))
			}
		}
		return append(lines, fmt.Sprintf("# open %v, mode %s", p.Open(), p.Mode()))
	})
}
