package logging_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/testkit"
)

// records returns the logged records by message.
func records(t *testing.T, l *testkit.Buffer) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		var rec map[string]any
		testkit.NoError(t, json.Unmarshal([]byte(line), &rec))
		out[rec["msg"].(string)] = rec
	}
	return out
}

// The actor system's logger tags protoactor's records and holds them to the
// library level; records logged through it from troupe's code are neither
// tagged nor held back.
func TestActorSystemLoggerTagsOnlyTheLibrary(t *testing.T) {
	for _, c := range []struct {
		name       string
		libLevel   slog.Level
		libVisible bool
	}{{"library at debug", slog.LevelDebug, true}, {"library at the default warn", 0, false}} {
		t.Run(c.name, func(t *testing.T) {
			var buf testkit.Buffer
			log, err := logging.New(logging.Options{Level: "debug", Format: "json", Writer: &buf})
			testkit.NoError(t, err)
			rt := testkit.Boot(t, actors.Options{Logger: log, LibraryLevel: c.libLevel})
			rt.System.Logger().With("actor", "a").Info("troupe's own record")

			recs := records(t, &buf)
			own, ok := recs["troupe's own record"]
			if !ok {
				t.Fatalf("own record missing: %v", recs)
			}
			if _, tagged := own["lib"]; tagged || own["actor"] != "a" {
				t.Fatalf("own record: %v", own)
			}
			lib, ok := recs["actor system started"] // logged by protoactor at info
			testkit.Equal(t, ok, c.libVisible)
			if ok && lib["lib"] != "protoactor" {
				t.Fatalf("library record not tagged: %v", lib)
			}
		})
	}
}
