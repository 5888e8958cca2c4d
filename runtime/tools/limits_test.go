package tools

import "testing"

func TestTruncateTail(t *testing.T) {
	cases := []struct {
		in            string
		bytes, lines  int
		want          string
		wantTruncated bool
	}{
		{"a\nb\nc\n", 100, 10, "a\nb\nc\n", false},
		{"a\nb\nc\n", 100, 2, "b\nc\n", true},
		{"a\nb\nc", 100, 2, "b\nc", true},
		{"aaaa\nbbbb\ncc\n", 8, 10, "cc\n", true},
		{"xxxxxxxxxx", 4, 10, "xxxx", true},
		{"ééé", 3, 10, "é", true}, // never splits a rune
	}
	for _, c := range cases {
		got, cut := truncateTail(c.in, c.bytes, c.lines)
		if got != c.want || cut != c.wantTruncated {
			t.Errorf("truncateTail(%q, %d, %d) = %q, %v; want %q, %v", c.in, c.bytes, c.lines, got, cut, c.want, c.wantTruncated)
		}
	}
}

func TestTruncateHead(t *testing.T) {
	cases := []struct {
		in            string
		bytes, lines  int
		want          string
		wantTruncated bool
	}{
		{"a\nb\nc", 100, 10, "a\nb\nc", false},
		{"a\nb\nc\n", 100, 2, "a\nb\n", true},
		{"aaaa\nbbbb\ncc\n", 8, 10, "aaaa\n", true},
		{"ééé", 3, 10, "é", true},
	}
	for _, c := range cases {
		got, cut := truncateHead(c.in, c.bytes, c.lines)
		if got != c.want || cut != c.wantTruncated {
			t.Errorf("truncateHead(%q, %d, %d) = %q, %v; want %q, %v", c.in, c.bytes, c.lines, got, cut, c.want, c.wantTruncated)
		}
	}
}
