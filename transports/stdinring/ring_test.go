package stdinring

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func openMemory(t *testing.T, capacity int64) *Ring {
	t.Helper()
	g := NewRegistry(t.TempDir(), 0)
	r, err := g.Open("s1", Options{CapacityBytes: capacity})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return r
}

// Writes of every size wrap the buffer; reads return exactly the bytes
// kept, and a cursor below them a gap up to the oldest.
func TestRingKeepsTheLastCapacityBytes(t *testing.T) {
	r := openMemory(t, 10)
	var all bytes.Buffer
	for i, n := range []int{3, 7, 1, 25, 4, 10, 9} {
		p := bytes.Repeat([]byte{byte('a' + i)}, n)
		all.Write(p)
		end, err := r.Write(p, false)
		if err != nil || end != int64(all.Len()) {
			t.Fatalf("write %d: end %d err %v, want %d", i, end, err, all.Len())
		}
		start := max(0, int64(all.Len())-10)
		c, err := r.Read(0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if c.Cursor != start || string(c.Data) != all.String()[start:] || c.Next != int64(all.Len()) {
			t.Fatalf("after write %d: %+v %q, want from %d %q", i, c, c.Data, start, all.String()[start:])
		}
		if (start > 0) != (c.Gap != nil) || (c.Gap != nil && (c.Gap.From != 0 || c.Gap.To != start || c.Gap.Bytes != start)) {
			t.Fatalf("after write %d: gap %+v, want to %d", i, c.Gap, start)
		}
	}
	c, _ := r.Read(int64(all.Len())-3, 2)
	if string(c.Data) != all.String()[all.Len()-3:all.Len()-1] || c.EOF {
		t.Fatalf("partial read: %+v", c)
	}
	if c, _ := r.Read(1<<40, 5); c.Cursor != int64(all.Len()) || len(c.Data) != 0 {
		t.Fatalf("read past the end: %+v", c)
	}
	if _, err := r.Write([]byte("z"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Write([]byte("late"), false); err == nil {
		t.Fatal("a write after eof was taken")
	}
	if c, _ := r.Read(int64(all.Len()), 10); !c.EOF || string(c.Data) != "z" {
		t.Fatalf("last read: %+v", c)
	}
}

// A read never ends inside a UTF-8 character while more follows.
func TestRingReadsEndOnCharacterBoundaries(t *testing.T) {
	r := openMemory(t, 64)
	s := strings.Repeat("é€😀", 3)
	if _, err := r.Write([]byte(s), false); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for cur := int64(0); cur < int64(len(s)); {
		c, err := r.Read(cur, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Data) == 0 {
			t.Fatalf("no progress at %d", cur)
		}
		if c.Next-cur < 3 {
			c, _ = r.Read(cur, 4) // what was cut there is read whole
		}
		got.Write(c.Data)
		cur = c.Next
	}
	if got.String() != s {
		t.Fatalf("pieces %q, want %q", got.String(), s)
	}
}

// Wait returns at once past the cursor, on a write or eof, or when its
// context ends; a writer and readers run together under -race.
func TestRingWaitWakesOnWrites(t *testing.T) {
	r := openMemory(t, 1<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, _, err := r.Wait(ctx, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait on nothing: %v", err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur := int64(0)
			for {
				end, eof, err := r.Wait(context.Background(), cur)
				if err != nil {
					t.Error(err)
					return
				}
				c, _ := r.Read(cur, 1<<10)
				cur = c.Next
				if eof && cur == end {
					return
				}
			}
		}()
	}
	for i := range 1000 {
		if _, err := r.Write([]byte(fmt.Sprintf("%04d\n", i)), i == 999); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}

// Open refuses a second ring, an unknown mode and rings past the budget;
// Drop gives the budget back.
func TestRegistryBoundsRings(t *testing.T) {
	g := NewRegistry(t.TempDir(), 100)
	if _, err := g.Open("a", Options{CapacityBytes: 60}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Open("a", Options{CapacityBytes: 1}); !errors.Is(err, ErrAlreadyOpen) {
		t.Fatalf("second open: %v", err)
	}
	if _, err := g.Open("b", Options{CapacityBytes: 60}); !errors.Is(err, ErrBudget) {
		t.Fatalf("over budget: %v", err)
	}
	if _, err := g.Open("b", Options{Mode: "tape"}); err == nil {
		t.Fatal("unknown mode taken")
	}
	if err := g.Drop("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Get("a"); !errors.Is(err, ErrNotOpen) {
		t.Fatalf("get after drop: %v", err)
	}
	if _, err := g.Open("b", Options{CapacityBytes: 60}); err != nil {
		t.Fatalf("after drop: %v", err)
	}
	if r, _ := g.Open("c", Options{CapacityBytes: 1 << 40}); r != nil {
		t.Fatal("a ring past MaxCapacity and the budget was opened")
	}
	// b's session is gone: a sweep frees its memory for c.
	if n := g.Sweep(func(id string) bool { return id != "b" }); n != 1 {
		t.Fatalf("swept %d", n)
	}
	if _, err := g.Open("c", Options{CapacityBytes: 100}); err != nil {
		t.Fatalf("after the sweep: %v", err)
	}
}
