package sessions_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence"
)

// Every kind has a row with a name of its own, and the table's lookups
// agree with it.
func TestKindTableHasEveryKind(t *testing.T) {
	names := map[string]sessions.Kind{}
	for _, k := range sessions.Kinds() {
		w := k.Wire()
		if w.Name == "" || w.ACPCode == 0 || w.JSONStream == "" {
			t.Fatalf("kind %d has no row in the table: %+v", k, w)
		}
		if prev, ok := names[w.Name]; ok {
			t.Fatalf("kinds %d and %d share the name %q", prev, k, w.Name)
		}
		names[w.Name] = k
		if k.String() != w.Name {
			t.Fatalf("kind %d: String %q, Name %q", k, k.String(), w.Name)
		}
	}
	if got := sessions.Kind(-1).Wire(); got != sessions.KindInternal.Wire() {
		t.Fatalf("an unknown kind answers %+v, not as internal", got)
	}
}

// KindOf classifies each facade error, bare, wrapped with context and
// (for a refusal that kept a session from starting) inside an
// *UnreachableError, by its most specific cause.
func TestKindOf(t *testing.T) {
	held := &sessions.LeaseHeldError{Holder: persistence.Holder{SessionID: "s1", Owner: persistence.Owner{PID: 42}}}
	cases := []struct {
		err  error
		want sessions.Kind
	}{
		{errors.New("disk I/O error"), sessions.KindInternal},
		{sessions.ErrNotFound, sessions.KindNotFound},
		{sessions.ErrAttentionLimit, sessions.KindInvalid},
		{sessions.ErrExists, sessions.KindExists},
		{sessions.ErrHasForks, sessions.KindHasForks},
		{held, sessions.KindHeld},
		{sessions.ErrBusy, sessions.KindBusy},
		{sessions.ErrNoRun, sessions.KindNoRun},
		{sessions.ErrNoEngine, sessions.KindNoEngine},
		{sessions.ErrFailed, sessions.KindFailed},
		{&persistence.WriteError{Full: true, Err: errors.New("database or disk is full")}, sessions.KindDiskFull},
		{&persistence.WriteError{Err: errors.New("attempt to write a readonly database")}, sessions.KindStoreWrite},
		{&sessions.UnreachableError{Session: "s1", Err: context.DeadlineExceeded}, sessions.KindUnreachable},
		{context.Canceled, sessions.KindCancelled},
	}
	seen := map[sessions.Kind]bool{}
	for _, c := range cases {
		seen[c.want] = true
		for _, err := range []error{c.err, fmt.Errorf("delete s1: %w", c.err)} {
			if got := sessions.KindOf(err); got != c.want {
				t.Errorf("KindOf(%v) = %s, want %s", err, got, c.want)
			}
		}
		if c.want == sessions.KindInternal || c.want == sessions.KindUnreachable {
			continue
		}
		wrapped := &sessions.UnreachableError{Session: "s1", Err: fmt.Errorf("start: %w", c.err)}
		if got := sessions.KindOf(wrapped); got != c.want {
			t.Errorf("KindOf(%v) = %s, want %s", wrapped, got, c.want)
		}
	}
	for _, k := range sessions.Kinds() {
		if !seen[k] {
			t.Errorf("kind %s has no case here", k)
		}
	}
}
