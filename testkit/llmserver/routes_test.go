package llmserver

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
)

func TestModelsAndProps(t *testing.T) {
	for _, tools := range []bool{false, true} {
		s := startT(t, Script{Model: "qwen-test", ContextSize: 2048, SupportsToolCalls: tools})
		for _, path := range []string{"/v1/models", "/models"} {
			got := do(t, http.MethodGet, s.URL()+path, "", nil)
			var models struct {
				Object string `json:"object"`
				Data   []struct {
					ID   string `json:"id"`
					Meta struct {
						NCtx int `json:"n_ctx"`
					} `json:"meta"`
				} `json:"data"`
			}
			if err := json.Unmarshal(got.body, &models); err != nil {
				t.Fatalf("%s: %v in %s", path, err, got.body)
			}
			if got.status != 200 || models.Object != "list" || len(models.Data) != 1 || models.Data[0].ID != "qwen-test" || models.Data[0].Meta.NCtx != 2048 {
				t.Errorf("%s: %d %s", path, got.status, got.body)
			}
		}
		got := do(t, http.MethodGet, s.URL()+"/props", "", nil)
		var props struct {
			Settings struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
			ModelAlias string `json:"model_alias"`
			Caps       struct {
				SupportsToolCalls *bool `json:"supports_tool_calls"`
				SupportsTools     *bool `json:"supports_tools"`
			} `json:"chat_template_caps"`
		}
		if err := json.Unmarshal(got.body, &props); err != nil {
			t.Fatalf("props: %v in %s", err, got.body)
		}
		if props.Settings.NCtx != 2048 || props.ModelAlias != "qwen-test" ||
			props.Caps.SupportsToolCalls == nil || *props.Caps.SupportsToolCalls != tools ||
			props.Caps.SupportsTools == nil || *props.Caps.SupportsTools != tools {
			t.Errorf("props with tools=%v: %s", tools, got.body)
		}
	}
}

func TestResponseEchoesRequestModel(t *testing.T) {
	s := startT(t, Script{Model: "configured", Default: &Reply{Steps: []Step{Text("x")}}})
	for req, want := range map[string]string{
		`{"model":"asked","messages":[]}`: `"model":"asked"`,
		`{"messages":[]}`:                 `"model":"configured"`,
	} {
		if got := postChat(t, s, req); !strings.Contains(string(got.body), want) {
			t.Errorf("%s: body %s lacks %s", req, got.body, want)
		}
	}
}

func TestLoadingThenReady(t *testing.T) {
	s := startT(t, Script{Loading: 2, Replies: []Reply{Steps(Text("x"))}})
	want := []int{503, 503, 200, 200}
	for i, w := range want {
		path := "/health"
		if i == 1 {
			path = "/v1/models"
		}
		if got := do(t, http.MethodGet, s.URL()+path, "", nil); got.status != w {
			t.Errorf("request %d to %s: status %d, want %d", i, path, got.status, w)
		}
	}
	// Loading answers took no reply.
	if got := postChat(t, s, plainReq); got.status != 200 {
		t.Errorf("chat after loading: %d %s", got.status, got.body)
	}
}

func TestAPIKey(t *testing.T) {
	s := startT(t, Script{APIKey: "secret", Default: &Reply{Steps: []Step{Text("x")}}})
	chat := s.URL() + "/v1/chat/completions"
	cases := []struct {
		name, method, url string
		header            map[string]string
		want              int
	}{
		{"health open", http.MethodGet, s.URL() + "/health", nil, 200},
		{"models closed", http.MethodGet, s.URL() + "/v1/models", nil, 401},
		{"no key", http.MethodPost, chat, nil, 401},
		{"wrong key", http.MethodPost, chat, map[string]string{"Authorization": "Bearer nope"}, 401},
		{"bearer", http.MethodPost, chat, map[string]string{"Authorization": "Bearer secret"}, 200},
		{"x-api-key", http.MethodPost, chat, map[string]string{"X-Api-Key": "secret"}, 200},
	}
	for _, c := range cases {
		body := ""
		if c.method == http.MethodPost {
			body = plainReq
		}
		if got := do(t, c.method, c.url, body, c.header); got.status != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got.status, c.want)
		}
	}
}

func TestMalformedRequests(t *testing.T) {
	s := startT(t, Script{Replies: []Reply{Steps(Text("kept"))}})
	cases := []struct {
		body   string
		status int
		want   string
	}{
		{`{"messages":[`, 500, `"type":"server_error"`},
		{`[1,2]`, 500, `parse error`},
		{`{"messages":"hi"}`, 400, `Expected 'messages' to be an array`},
		{`{}`, 400, `Expected 'messages' to be an array`},
	}
	for _, c := range cases {
		got := postChat(t, s, c.body)
		if got.status != c.status || !strings.Contains(string(got.body), c.want) {
			t.Errorf("%s: %d %s, want %d with %s", c.body, got.status, got.body, c.status, c.want)
		}
	}
	// None of them used up the reply.
	if got := postChat(t, s, plainReq); !strings.Contains(string(got.body), `"content":"kept"`) {
		t.Errorf("reply was consumed by a bad request: %s", got.body)
	}
}

// The script example in the package doc must stay a valid script.
func TestDocExampleScriptParses(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(src), "// # Script files\n")
	if !ok {
		t.Fatal("doc.go has no Script files section")
	}
	var yaml strings.Builder
	started := false
	for _, line := range strings.Split(after, "\n") {
		code, isCode := strings.CutPrefix(line, "//\t")
		if !isCode {
			if started {
				break
			}
			continue
		}
		started = true
		yaml.WriteString(code + "\n")
	}
	if _, err := ParseScript([]byte(yaml.String())); err != nil {
		t.Errorf("doc example: %v\n%s", err, yaml.String())
	}
}
