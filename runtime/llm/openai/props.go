package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/troupehq/troupe/runtime/llm"
)

// maxInfoBody bounds /props and /v1/models answers; old llama-server puts a
// whole slot, prompt included, in /props.
const maxInfoBody = 16 << 20

// Props is what llama-server's GET /props says about the loaded model.
type Props struct {
	ModelAlias   string
	ModelPath    string
	ContextSize  int // n_ctx per slot
	TotalSlots   int
	ChatTemplate string
	// SupportsTools and SupportsToolCalls come from chat_template_caps; nil
	// means the server does not say (llama-server before mid-2025), not no.
	SupportsTools     *bool
	SupportsToolCalls *bool
	Vision            bool
	IsSleeping        bool
	BuildInfo         string
}

type wireProps struct {
	DefaultGenerationSettings struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
	TotalSlots       int    `json:"total_slots"`
	ModelAlias       string `json:"model_alias"`
	ModelPath        string `json:"model_path"`
	ChatTemplate     string `json:"chat_template"`
	ChatTemplateCaps *struct {
		SupportsTools     *bool `json:"supports_tools"`
		SupportsToolCalls *bool `json:"supports_tool_calls"`
	} `json:"chat_template_caps"`
	Modalities struct {
		Vision bool `json:"vision"`
	} `json:"modalities"`
	IsSleeping bool   `json:"is_sleeping"`
	BuildInfo  string `json:"build_info"`
}

// Props reads llama-server's GET /props from the server root.
func (c *Client) Props(ctx context.Context) (*Props, error) {
	var w wireProps
	if err := c.getJSON(ctx, c.serverRoot+"/props", &w); err != nil {
		return nil, fmt.Errorf("props: %w", err)
	}
	p := &Props{
		ModelAlias:   w.ModelAlias,
		ModelPath:    w.ModelPath,
		ContextSize:  w.DefaultGenerationSettings.NCtx,
		TotalSlots:   w.TotalSlots,
		ChatTemplate: w.ChatTemplate,
		Vision:       w.Modalities.Vision,
		IsSleeping:   w.IsSleeping,
		BuildInfo:    w.BuildInfo,
	}
	if caps := w.ChatTemplateCaps; caps != nil {
		p.SupportsTools, p.SupportsToolCalls = caps.SupportsTools, caps.SupportsToolCalls
	}
	return p, nil
}

// Models lists the model ids from GET <API root>/models.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var w struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.getJSON(ctx, c.apiRoot+"/models", &w); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	ids := make([]string, 0, len(w.Data))
	for _, m := range w.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// Health asks llama-server's GET /health whether the model is ready: nil
// once it is, a retryable *llm.Error (503 "Loading model") while it loads.
func (c *Client) Health(ctx context.Context) error {
	if err := c.getJSON(ctx, c.serverRoot+"/health", nil); err != nil {
		return fmt.Errorf("health: %w", err)
	}
	return nil
}

// getJSON GETs url and decodes a 2xx JSON answer into v (v nil: discard).
func (c *Client) getJSON(ctx context.Context, url string, v any) error {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	hreq.Header.Set("Accept", "application/json")
	c.setHeaders(hreq, nil)
	resp, err := c.do(ctx, hreq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxInfoBody))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return llm.NetworkError(err)
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &llm.Error{Type: llm.TypeInvalidResponse,
			Message: "bad json: " + string(truncate(body, 200)), Err: err}
	}
	return nil
}
