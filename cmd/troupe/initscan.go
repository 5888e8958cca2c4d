package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// localLlama is where a llama-server started by hand answers by default;
// troupe init looks there and nowhere else off the environment's word.
const localLlama = "http://127.0.0.1:8080"

// probeTimeout bounds each request troupe init and troupe doctor make.
const probeTimeout = 2 * time.Second

// findings is what troupe init found to configure.
type findings struct {
	endpoint *server // $OPENAI_BASE_URL
	llama    *server // a llama-server answering on localLlama
	configs  []string
	keys     []providerKey
}

// server is an OpenAI-compatible endpoint found, with the models it
// lists (none when listing failed: err says why).
type server struct {
	baseURL string
	apiEnv  string // the variable holding its key, if any
	models  []string
	err     error
}

// providerKey is a hosted provider whose credentials the environment
// holds: an entry named name on API api, to uncomment.
type providerKey struct {
	name, api, env, region string
	models                 []string // well-known model ids, as examples
}

func (f findings) empty() bool {
	return f.endpoint == nil && f.llama == nil && len(f.configs) == 0 && len(f.keys) == 0
}

// scanForInit looks at the environment, the loopback llama-server port
// and the home's llama configs.
func scanForInit(ctx context.Context, home string, getenv func(string) string) findings {
	var f findings
	if u := strings.TrimSpace(getenv(modelconfig.EnvOpenAIBaseURL)); u != "" {
		s := &server{baseURL: strings.TrimRight(u, "/")}
		key := getenv(modelconfig.EnvOpenAIAPIKey)
		if key != "" {
			s.apiEnv = modelconfig.EnvOpenAIAPIKey
		}
		s.models, s.err = listModels(ctx, s.baseURL, key)
		f.endpoint = s
	}
	// A $OPENAI_BASE_URL that is the local llama-server is one provider,
	// not two.
	if !sameServer(f.endpoint, localLlama) && healthy(ctx, localLlama+"/health") {
		s := &server{baseURL: localLlama + "/v1"}
		s.models, s.err = listModels(ctx, s.baseURL, "")
		f.llama = s
	}
	if entries, err := (llamaconfig.Store{Dir: filepath.Join(home, "configs")}).List(); err == nil {
		for _, e := range entries {
			f.configs = append(f.configs, e.Name)
		}
	}
	f.keys = providerKeys(getenv)
	return f
}

// providerKeys are the hosted providers the environment has credentials
// for. OPENAI_API_KEY counts for OpenAI's own API only without
// OPENAI_BASE_URL, which it then belongs to.
func providerKeys(getenv func(string) string) []providerKey {
	var keys []providerKey
	if getenv("ANTHROPIC_API_KEY") != "" {
		keys = append(keys, providerKey{name: "anthropic", api: "anthropic", env: "ANTHROPIC_API_KEY",
			models: []string{"claude-sonnet-4-5", "claude-opus-4-1"}})
	}
	for _, env := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		if getenv(env) != "" {
			keys = append(keys, providerKey{name: "google", api: "google", env: env, models: []string{"gemini-2.5-pro", "gemini-2.5-flash"}})
			break
		}
	}
	if getenv(modelconfig.EnvOpenAIAPIKey) != "" && getenv(modelconfig.EnvOpenAIBaseURL) == "" {
		keys = append(keys, providerKey{name: "openai", api: "openai", env: modelconfig.EnvOpenAIAPIKey, models: []string{"gpt-5", "gpt-5-mini"}})
	}
	awsCreds := (getenv("AWS_ACCESS_KEY_ID") != "" && getenv("AWS_SECRET_ACCESS_KEY") != "") || getenv("AWS_PROFILE") != ""
	if region := getenv("AWS_REGION"); region != "" && awsCreds {
		keys = append(keys, providerKey{name: "bedrock", api: "bedrock", region: region,
			models: []string{"anthropic.claude-sonnet-4-5-20250929-v1:0"}})
	}
	return keys
}

// healthy reports whether url answers 200 within probeTimeout.
func healthy(ctx context.Context, url string) bool {
	res, err := probe(ctx, url, "")
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// probe GETs url with the bearer key (if any) within probeTimeout; the
// caller closes the body.
func probe(ctx context.Context, url, key string) (*http.Response, error) {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return probeWith(ctx, url, h)
}

// probeWith GETs url with header within probeTimeout; the caller closes
// the body.
func probeWith(ctx context.Context, url string, header http.Header) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header = header
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	res.Body = cancelOnClose{res.Body, cancel}
	return res, nil
}

// cancelOnClose ends a probe's deadline with its body.
type cancelOnClose struct {
	body   io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Read(p []byte) (int, error) { return c.body.Read(p) }
func (c cancelOnClose) Close() error {
	defer c.cancel()
	return c.body.Close()
}

// listModels asks an OpenAI-compatible server for its models' ids.
func listModels(ctx context.Context, baseURL, key string) ([]string, error) {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return listModelsAt(ctx, baseURL+"/models", h)
}

// listModelsAt reads a model list: OpenAI's and Anthropic's shape
// (data[].id), else Gemini's (models[].name, "models/ID").
func listModelsAt(ctx context.Context, url string, header http.Header) ([]string, error) {
	res, err := probeWith(ctx, url, header)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	var ids []string
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	if len(list.Data) > 0 {
		return ids, nil // llama-server sends both lists, its own models[] the same ids
	}
	for _, m := range list.Models {
		if id := strings.TrimPrefix(m.Name, "models/"); id != "" {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// sameServer reports whether s is the server at base (scheme, host and
// port; 127.0.0.1 and localhost alike).
func sameServer(s *server, base string) bool {
	if s == nil {
		return false
	}
	a, errA := url.Parse(s.baseURL)
	b, errB := url.Parse(base)
	if errA != nil || errB != nil {
		return false
	}
	host := func(u *url.URL) string {
		h := u.Hostname()
		if h == "localhost" {
			h = "127.0.0.1"
		}
		return h + ":" + u.Port()
	}
	return a.Scheme == b.Scheme && host(a) == host(b)
}
