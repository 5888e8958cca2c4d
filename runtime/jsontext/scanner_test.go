package jsontext

import "testing"

// TestScannerWalk reads an object the way the hot paths do: keys, a
// string with escapes, an integer, a skipped nested value, the end.
func TestScannerWalk(t *testing.T) {
	var s Scanner
	s.Reset([]byte(` {"a":"x\"y","n":-12,"skip":{"k":[1,"]",{}]},"z":null} `))
	first := true
	if !s.EnterObject() {
		t.Fatal(s.Err())
	}
	got := map[string]string{}
	for {
		key, ok := s.NextKey(&first)
		if !ok {
			break
		}
		switch string(key) {
		case "a":
			got["a"] = string(s.StringOrNull())
		case "n":
			if s.IntOrNull() != -12 {
				t.Fatal("n")
			}
		case "z":
			if !s.Null() {
				t.Fatal("z")
			}
		default:
			got[string(key)] = string(s.RawValue())
		}
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	if got["a"] != `x"y` || got["skip"] != `{"k":[1,"]",{}]}` {
		t.Fatalf("read %q", got)
	}
}

// TestScannerEnd: only space may follow the value; a NUL byte is not the
// end although Peek reports 0 for both.
func TestScannerEnd(t *testing.T) {
	for in, ok := range map[string]bool{"{}": true, "{} \n": true, "{}\x00": false, "{} x": false, "{": false} {
		var s Scanner
		s.Reset([]byte(in))
		first := true
		if s.EnterObject() {
			for {
				if _, more := s.NextKey(&first); !more {
					break
				}
				s.Skip()
			}
		}
		if err := s.End(); (err == nil) != ok {
			t.Errorf("%q: End() = %v, want ok %v", in, err, ok)
		}
	}
}

// TestScanString: one pass says where a string ends, whether it needs
// decoding, and whether it is printable ASCII.
func TestScanString(t *testing.T) {
	cases := []struct {
		in                 string
		raw                string
		escaped, plain, ok bool
	}{
		{`"abc" x`, "abc", false, true, true},
		{`"a\"b"`, `a\"b`, true, true, true},
		{`"é"`, "é", false, false, true},
		{"\"a\x01\"", "a\x01", false, false, true},
		{`"open`, "", false, false, false},
		{`x"`, "", false, false, false},
	}
	for _, c := range cases {
		raw, esc, plain, next, ok := ScanString([]byte(c.in), 0)
		if ok != c.ok || (ok && (string(raw) != c.raw || esc != c.escaped || plain != c.plain || next != len(c.raw)+2)) {
			t.Errorf("%q: got %q esc %v plain %v next %d ok %v", c.in, raw, esc, plain, next, ok)
		}
	}
	if got := SkipSpace([]byte(" \t\r\n x"), 0); got != 5 {
		t.Errorf("SkipSpace: %d", got)
	}
}
