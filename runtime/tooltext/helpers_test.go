package tooltext

import (
	"reflect"
	"testing"
)

func requireEqual[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

// callsOf drops Raw and Format so tables can state what matters.
func callsOf(r Result) []Call {
	var out []Call
	for _, c := range r.Calls {
		out = append(out, Call{Name: c.Name, Arguments: c.Arguments})
	}
	return out
}
