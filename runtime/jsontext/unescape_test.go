package jsontext

import (
	"encoding/json"
	"testing"
)

var unescapeSeeds = []string{
	``, `plain`, `\"\\\/\b\f\n\r\t`, `\u00e9\u65e5`, `\ud83c\udf89`, `\ud83c`, `\udf89x`, `\ud83c\u0041`,
	`bad \x`, `\u12`, "raw \x01 control", "invalid \xff utf8", `end\`,
}

// AppendUnescaped(raw) must be what json.Unmarshal makes of "raw",
// refusals included.
func FuzzAppendUnescaped(f *testing.F) {
	for _, s := range unescapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for i := 0; i < len(raw); i++ {
			switch raw[i] {
			case '\\':
				i++ // an escape: the next byte cannot end the string
			case '"':
				return // would end the string early: not a string's content
			}
		}
		var want string
		err := json.Unmarshal([]byte(`"`+raw+`"`), &want)
		got, ok := AppendUnescaped(nil, []byte(raw))
		if ok != (err == nil) {
			t.Fatalf("%q: ok %v, json.Unmarshal error %v", raw, ok, err)
		}
		if ok && string(got) != want {
			t.Fatalf("%q: got %q, want %q", raw, got, want)
		}
	})
}
