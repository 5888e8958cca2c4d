package logfile

import (
	"bytes"
	"testing"
	"time"
)

// Each line gets the time it was started at, however the writes cut it.
func TestStampedStartsEachLine(t *testing.T) {
	var out bytes.Buffer
	at := time.Date(2026, 11, 28, 0, 10, 51, 242e6, time.UTC)
	w := Stamped(&out, func() time.Time { return at })
	for _, s := range []string{"one\ntwo", " halves\n", "three\n\n"} {
		n, err := w.Write([]byte(s))
		if err != nil || n != len(s) {
			t.Fatalf("write %q: %d, %v", s, n, err)
		}
	}
	const stamp = "2026-11-28 00:10:51.242 "
	want := stamp + "one\n" + stamp + "two halves\n" + stamp + "three\n" + stamp + "\n"
	if out.String() != want {
		t.Fatalf("got %q\nwant %q", out.String(), want)
	}
}
