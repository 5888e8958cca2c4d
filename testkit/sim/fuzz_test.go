package sim

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any scenario file gives a scenario or an error, never a
// panic, and a scenario that parses plans under any seed.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yml")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint64(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		actions, sessions, faults := 0, 0, 0
		for _, f := range s.Faults {
			faults += max(f.Count, 1)
		}
		if s.Random != nil {
			faults += s.Random.Count
		}
		for _, sp := range s.Sessions {
			sessions += sp.Count
			n := 0
			for _, p := range sp.Prompts {
				n += max(p.Count, 1)
			}
			actions += sp.Count * n
		}
		if actions > 10_000 || sessions*faults > 100_000 {
			return // valid, only slow to plan
		}
		_ = Plan(s, seed)
	})
}
