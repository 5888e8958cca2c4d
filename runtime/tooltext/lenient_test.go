package tooltext

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNormalizeJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{" { \"a\" : 1 , \"b\" : [ 1 , 2 ] } ", `{"a":1,"b":[1,2]}`},
		{`{a: 1}`, `{"a":1}`},
		{`{_a1: true, b2: false, c: null}`, `{"_a1":true,"b2":false,"c":null}`},
		{`{ключ: "значение"}`, `{"ключ":"значение"}`},
		{`{a: 1,}`, `{"a":1}`},
		{`[1, 2, ]`, `[1,2]`},
		{"{a: [ {b: 1,},\n\t],\r\n}", `{"a":[{"b":1}]}`},
		{`{"order": 1, "keeps": 2, "a": 3}`, `{"order":1,"keeps":2,"a":3}`},
		{`{"n": -0.5e+10, "m": 0, "k": 12345678901234567890}`, `{"n":-0.5e+10,"m":0,"k":12345678901234567890}`},
		{`{"s": "\u0041\/\n<&>\u2028\t\u0007"}`, `{"s":"A/\n<&>\u2028\t\u0007"}`},
		{`{"url": "http://x"}`, `{"url":"http://x"}`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`"just a string"`, `"just a string"`},
		{`{truthy: true}`, `{"truthy":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := normalizeJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			requireEqual(t, string(got), tt.want)
			if !json.Valid(got) {
				t.Fatalf("output %s is not JSON", got)
			}
		})
	}
}

func TestNormalizeJSONRejects(t *testing.T) {
	tests := []struct{ in, wantMsg string }{
		{``, "expected a value, found end of input"},
		{`{`, "expected an object key, found end of input"},
		{`{a}`, "expected ':'"},
		{`{a: 1 b: 2}`, "expected ',' or '}'"},
		{`{,}`, "expected an object key"},
		{`{a: 1,,}`, "expected an object key"},
		{`[1,,2]`, "expected a value"},
		{`[,]`, "expected a value"},
		{`{'a': 1}`, "expected an object key"},
		{`{"a": 'x'}`, "expected a value"},
		{`{"a": bare}`, "expected a value"},
		{`{"a": nullx}`, "expected a value"},
		{`{"a": 01}`, "expected ',' or '}'"},
		{`{"a": 1.}`, "digit after '.'"},
		{`{"a": .5}`, "expected a value"},
		{`{"a": 1e}`, "exponent digit"},
		{`{"a": -}`, "expected a digit"},
		{`{"a": +1}`, "expected a value"},
		{`{"a": NaN}`, "expected a value"},
		{`{"a": "x\qy"}`, "bad string"},
		{`{"a": "unterminated}`, "unterminated string"},
		{"{\"a\": \"tab\there\"}", "control character"},
		{`{"a": 1} {"b": 2}`, "after the value"},
		{`{"a": 1 // comment
}`, "expected ',' or '}'"},
		{strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), "nesting deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := normalizeJSON([]byte(tt.in))
			if err == nil {
				t.Fatalf("accepted as %s", got)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("error %q, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

func TestNormalizeJSONDepthLimitIsInclusive(t *testing.T) {
	in := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, err := normalizeJSON([]byte(in)); err != nil {
		t.Fatalf("depth %d rejected: %v", maxDepth, err)
	}
}
