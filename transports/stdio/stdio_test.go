package stdio_test

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/stdio"
)

func readAll(t *testing.T, in string, max int) ([]string, []error) {
	t.Helper()
	rd := stdio.NewReader(strings.NewReader(in), max)
	var lines []string
	var errs []error
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return lines, errs
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lines = append(lines, string(l))
	}
}

func TestReaderFraming(t *testing.T) {
	lines, errs := readAll(t, "{\"a\":1}\r\n{\"s\":\"x\u2028y\u2029z\"}\n\n{\"last\":true}", 0)
	testkit.Equal(t, len(errs), 0)
	testkit.DeepEqual(t, lines, []string{`{"a":1}`, "{\"s\":\"x\u2028y\u2029z\"}", "", `{"last":true}`})
}

func TestReaderLimitSkipsTheLine(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	lines, errs := readAll(t, "ok1\n"+long+"\nok2\n"+long, 1000)
	testkit.DeepEqual(t, lines, []string{"ok1", "ok2"})
	testkit.Equal(t, len(errs), 2)
	if !errors.Is(errs[0], stdio.ErrLineTooLong) || !strings.Contains(errs[0].Error(), "line 2") {
		t.Fatalf("error %v", errs[0])
	}
}

func TestWriterSerialisesWholeLines(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	var out testkit.Buffer
	w := sys.Root.Spawn(stdio.WriterProps(&out))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				sys.Root.Send(w, &stdio.JSON{V: map[string]int{"g": g, "i": i}})
			}
		}()
	}
	wg.Wait()
	res, err := sys.Root.RequestFuture(w, &stdio.Flush{}, 5*time.Second).Result()
	testkit.NoError(t, err)
	testkit.NoError(t, res.(*stdio.Flushed).Err)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	testkit.Equal(t, len(lines), 800)
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"g":`) || !strings.HasSuffix(l, "}") {
			t.Fatalf("interleaved line %q", l)
		}
	}
}
