package stdinring

import (
	"bytes"
	"testing"
)

// BenchmarkRingWriteRead: 64 KiB chunks through a 1 MiB ring, each read
// back from its cursor as a reader keeping pace would; bytes/s is the
// stream's throughput inside the daemon (the HTTP and MCP layers aside).
func BenchmarkRingWriteRead(b *testing.B) {
	g := NewRegistry(b.TempDir(), 0)
	defer g.Close()
	r, err := g.Open("s", Options{CapacityBytes: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("0123456789abcde\n"), 4096)
	b.SetBytes(int64(len(chunk)))
	cur := int64(0)
	for b.Loop() {
		if _, err := r.Write(chunk, false); err != nil {
			b.Fatal(err)
		}
		c, err := r.Read(cur, int64(len(chunk)))
		if err != nil || c.Gap != nil {
			b.Fatalf("read at %d: %v %+v", cur, err, c.Gap)
		}
		cur = c.Next
	}
}
