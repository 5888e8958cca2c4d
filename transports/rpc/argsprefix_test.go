package rpc

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestArgsPrefixRendersEachPrefix(t *testing.T) {
	cases := []struct {
		chunks []string
		want   []string // the rendering after each chunk
	}{
		{
			[]string{`{`, `"com`, `mand"`, `:`, ` "`, `ls`, ` -la`, `"`, `}`},
			[]string{`{}`, `{}`, `{}`, `{}`, `{"command":""}`, `{"command":"ls"}`, `{"command":"ls -la"}`, `{"command":"ls -la"}`, `{"command":"ls -la"}`},
		},
		{
			[]string{`{"a":1`, `2`, `,`, `"b":[tr`, `ue,{"c":"x\"`, `y`},
			[]string{`{}`, `{}`, `{"a":12}`, `{"a":12,"b":[]}`, `{"a":12,"b":[true,{"c":"x\""}]}`, `{"a":12,"b":[true,{"c":"x\"y"}]}`},
		},
		{
			[]string{`{"p":"a\`, `u00`, `e9`, `b\`, `n`},
			[]string{`{"p":"a"}`, `{"p":"a"}`, `{"p":"a\u00e9"}`, `{"p":"a\u00e9b"}`, `{"p":"a\u00e9b\n"}`},
		},
		{
			[]string{"{ \"a\" :\n [ 1 , null ,", " [ ] , { } ] }"},
			[]string{`{"a":[1,null]}`, `{"a":[1,null,[],{}]}`},
		},
		{
			[]string{`{"s":"line` + "\u2028" + `para`, "\xff\"}"},
			[]string{`{"s":"line\u2028para"}`, `{"s":"line\u2028para\ufffd"}`},
		},
		{
			// Not JSON: nothing to show.
			[]string{`cat `, `a.txt`},
			[]string{`{}`, `{}`},
		},
		{
			// A byte that breaks the grammar freezes the rendering.
			[]string{`{"a":"b"}`, `, "c"`, `:1}`},
			[]string{`{"a":"b"}`, `{"a":"b"}`, `{"a":"b"}`},
		},
		{
			[]string{`{"a":"x`, "\n", `y"}`},
			[]string{`{"a":"x"}`, `{"a":"x"}`, `{"a":"x"}`},
		},
		{
			[]string{`"top`, ` level"`},
			[]string{`"top"`, `"top level"`},
		},
		{
			[]string{`{"a":tru`, `x}`},
			[]string{`{}`, `{}`},
		},
	}
	for _, c := range cases {
		var p argsPrefix
		for i, chunk := range c.chunks {
			p.write(chunk)
			got := string(p.render(nil))
			if got != c.want[i] {
				t.Errorf("%q, after %q: got %s, want %s", c.chunks, chunk, got, c.want[i])
			}
			if p.renderLen() != len(got) {
				t.Errorf("%q, after %q: renderLen %d, rendering %d bytes", c.chunks, chunk, p.renderLen(), len(got))
			}
		}
	}
}

// Whatever the text and however it is cut, every rendering is valid JSON
// of the length renderLen says, and a whole value renders as itself.
func FuzzArgsPrefix(f *testing.F) {
	for _, s := range []string{`{"command":"echo one > a.txt; cat a.txt"}`, `{"a":[1,-2.5e3,true,false,null,{"b":"\u00e9\ud83d\ude00"}],"c":{}}`, `[]`, `"x"`, `{"a":"b\"c\\"}`, "{\"a\":\"\xff\u2029\"}", `{"a":1}}`, `{]`} {
		f.Add([]byte(s), uint8(1), uint8(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, step1, step2 uint8) {
		var p argsPrefix
		steps := []int{int(step1%16) + 1, int(step2%16) + 1}
		for i, k := 0, 0; i < len(data); k++ {
			j := min(i+steps[k%2], len(data))
			p.write(string(data[i:j]))
			i = j
			r := p.render(nil)
			if !json.Valid(r) {
				t.Fatalf("after %q: invalid rendering %s", data[:i], r)
			}
			if len(r) != p.renderLen() {
				t.Fatalf("after %q: renderLen %d, rendering %d bytes", data[:i], p.renderLen(), len(r))
			}
		}
		if p.st != stDone {
			return
		}
		var want, got any
		if json.Unmarshal(data, &want) != nil {
			t.Fatalf("%q read as complete but is not JSON", data)
		}
		if err := json.Unmarshal(p.render(nil), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q renders as %s", data, p.render(nil))
		}
	})
}
