package rpc

import (
	"bytes"
	"encoding/json"
)

// marshal is json.Marshal without HTML escaping: hosts read `<` and `&`
// in code and shell commands, as JSON.stringify writes them.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
