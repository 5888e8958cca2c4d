package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// marshal is what AppendString must equal: encoding/json, with or without
// HTML escaping.
func marshal(t testing.TB, s string, html bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var seeds = []string{
	"", "plain", `quote " and \ backslash`, "<a href='x'>&amp;</a>", "tab\tnl\nr\rb\bf\f\x00\x1f\x7f",
	"é ü 日本 🎉", "\u2028 and \u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate",
}

func TestAppendStringEqualsEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		for _, html := range []bool{true, false} {
			if got, want := AppendString(nil, s, html), marshal(t, s, html); !bytes.Equal(got, want) {
				t.Errorf("AppendString(%q, html=%v) = %s, want %s", s, html, got, want)
			}
		}
	}
}

func TestAppendEscapedPiecewise(t *testing.T) {
	got := AppendEscaped(AppendEscaped([]byte(`"`), "a<", false), "\n>b", false)
	if want := marshal(t, "a<\n>b", false); !bytes.Equal(append(got, '"'), want) {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		if got, want := AppendString(nil, s, html), marshal(t, s, html); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q, html=%v) = %s, want %s", s, html, got, want)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	buf := make([]byte, 0, 256)
	s := "a streamed token with \"quotes\" and <tags>, é"
	for b.Loop() {
		buf = AppendString(buf[:0], s, true)
	}
}
