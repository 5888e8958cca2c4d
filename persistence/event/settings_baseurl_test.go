package event

import "testing"

// A base URL belongs to its provider: a change of provider that names
// none drops it; a change of model, or of provider naming one, keeps or
// sets it.
func TestMergeBaseURLFollowsItsProvider(t *testing.T) {
	str := func(s string) *string { return &s }
	local := Settings{Provider: str("openai"), Model: str("tiny"), BaseURL: str("http://127.0.0.1:8080/v1")}
	for _, c := range []struct {
		name string
		upd  Settings
		want string
	}{
		{"model", Settings{Model: str("big")}, "http://127.0.0.1:8080/v1"},
		{"same provider", Settings{Provider: str("openai")}, "http://127.0.0.1:8080/v1"},
		{"other provider", Settings{Provider: str("hosted")}, ""},
		{"other provider with its own", Settings{Provider: str("hosted"), BaseURL: str("https://h.example/v1")}, "https://h.example/v1"},
	} {
		got := local.Merge(c.upd).BaseURL
		if (got == nil && c.want != "") || (got != nil && *got != c.want) {
			t.Errorf("%s: base URL %v, want %q", c.name, got, c.want)
		}
	}
}
