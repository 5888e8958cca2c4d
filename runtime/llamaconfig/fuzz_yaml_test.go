package llamaconfig

import "testing"

// FuzzParseYAML: any config file gives a config or an error, never a
// panic, and a config that parses validates without one.
func FuzzParseYAML(f *testing.F) {
	f.Add([]byte("model_path: /m/x.gguf\nport: 8080\nctx: 4096\nn_slots: 2\n"))
	f.Add([]byte("host: 0.0.0.0\ngpu_layers: auto\nextra_args: [--flash-attn]\nsampling: {temp: 0.7}\n"))
	f.Add([]byte("{}"))
	f.Add([]byte("port: -1\nunknown: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		_ = c.Validate()
	})
}
