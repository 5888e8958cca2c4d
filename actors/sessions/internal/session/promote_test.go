package session

import (
	"strings"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

func TestSeedTitle(t *testing.T) {
	text := func(s ...string) []event.Block {
		var out []event.Block
		for _, x := range s {
			out = append(out, event.Block{Type: "text", Text: x})
		}
		return out
	}
	for _, c := range []struct {
		content []event.Block
		want    string
	}{
		{text("fix it\nplease"), "fix it"},
		{text("\n\n  spaced  \n"), "spaced"},
		{text("/hydra title x"), ""}, // a slash command: the next prompt titles
		{text("  /model gpt"), ""},
		{[]event.Block{{Type: "image", URI: "file:///a.png"}}, ""},
		{text("two ", "blocks"), "two blocks"},
		{text(strings.Repeat("é", 250)), strings.Repeat("é", 200)},
	} {
		if got := seedTitle(c.content); got != c.want {
			t.Errorf("seedTitle(%+v) = %q, want %q", c.content, got, c.want)
		}
	}
}
