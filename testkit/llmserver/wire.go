package llmserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The structs below fix the key order of llama-server's JSON, which
// clients never depend on but golden files and byte comparisons do.

const systemFingerprint = "b0-unknown"

type chunk struct {
	Choices           []chunkChoice `json:"choices"`
	Created           int64         `json:"created"`
	ID                string        `json:"id"`
	Model             string        `json:"model"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Object            string        `json:"object"`
	Usage             *usageJSON    `json:"usage,omitempty"`
	Timings           *timingsJSON  `json:"timings,omitempty"`
}

type chunkChoice struct {
	FinishReason *string `json:"finish_reason"`
	Index        int     `json:"index"`
	Delta        any     `json:"delta"`
}

type roleDelta struct {
	Role    string  `json:"role"`
	Content *string `json:"content"`
}

type contentDelta struct {
	Content string `json:"content"`
}

type reasoningDelta struct {
	ReasoningContent string `json:"reasoning_content"`
}

type emptyDelta struct{}

type toolDelta struct {
	ToolCalls []toolCallDelta `json:"tool_calls"`
}

// toolCallDelta mirrors common_chat_msg_diff_to_json_oaicompat: id and type
// only when there is an id, name only when there is a name, arguments always.
type toolCallDelta struct {
	Index    int           `json:"index"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function functionDelta `json:"function"`
}

type functionDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type completion struct {
	Choices           []completionChoice `json:"choices"`
	Created           int64              `json:"created"`
	Model             string             `json:"model"`
	SystemFingerprint string             `json:"system_fingerprint"`
	Object            string             `json:"object"`
	Usage             *usageJSON         `json:"usage,omitempty"`
	ID                string             `json:"id"`
	Timings           *timingsJSON       `json:"timings,omitempty"`
}

type completionChoice struct {
	FinishReason string  `json:"finish_reason"`
	Index        int     `json:"index"`
	Message      message `json:"message"`
}

type message struct {
	Role             string         `json:"role"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	Content          *string        `json:"content"`
	ToolCalls        []toolCallJSON `json:"tool_calls,omitempty"`
}

type toolCallJSON struct {
	Type     string       `json:"type"`
	Function functionJSON `json:"function"`
	ID       string       `json:"id"`
}

type functionJSON struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type usageJSON struct {
	CompletionTokens    int                `json:"completion_tokens"`
	PromptTokens        int                `json:"prompt_tokens"`
	TotalTokens         int                `json:"total_tokens"`
	PromptTokensDetails promptTokensDetail `json:"prompt_tokens_details"`
}

type promptTokensDetail struct {
	CachedTokens int `json:"cached_tokens"`
}

type timingsJSON struct {
	CacheN              int    `json:"cache_n"`
	PromptN             int    `json:"prompt_n"`
	PromptMS            cfloat `json:"prompt_ms"`
	PromptPerTokenMS    cfloat `json:"prompt_per_token_ms"`
	PromptPerSecond     cfloat `json:"prompt_per_second"`
	PredictedN          int    `json:"predicted_n"`
	PredictedMS         cfloat `json:"predicted_ms"`
	PredictedPerTokenMS cfloat `json:"predicted_per_token_ms"`
	PredictedPerSecond  cfloat `json:"predicted_per_second"`
}

// Invented but plausible speeds, so clients that compute tokens per second
// from timings get finite numbers.
const (
	promptMSPerToken    = 0.5
	predictedMSPerToken = 10.0
)

func (u Usage) wire() *usageJSON {
	total := cmp.Or(u.TotalTokens, u.PromptTokens+u.CompletionTokens)
	return &usageJSON{
		CompletionTokens:    u.CompletionTokens,
		PromptTokens:        u.PromptTokens,
		TotalTokens:         total,
		PromptTokensDetails: promptTokensDetail{CachedTokens: u.CachedTokens},
	}
}

func (u Usage) timings() *timingsJSON {
	promptN := max(u.PromptTokens-u.CachedTokens, 0)
	t := &timingsJSON{
		CacheN:      u.CachedTokens,
		PromptN:     promptN,
		PromptMS:    cfloat(float64(promptN) * promptMSPerToken),
		PredictedN:  u.CompletionTokens,
		PredictedMS: cfloat(float64(u.CompletionTokens) * predictedMSPerToken),
	}
	if promptN > 0 {
		t.PromptPerTokenMS = promptMSPerToken
		t.PromptPerSecond = 1000 / promptMSPerToken
	}
	if u.CompletionTokens > 0 {
		t.PredictedPerTokenMS = predictedMSPerToken
		t.PredictedPerSecond = 1000 / predictedMSPerToken
	}
	return t
}

// cfloat prints like nlohmann::json: an integral value keeps ".0".
type cfloat float64

func (f cfloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return []byte(s), nil
}

// marshal is json.Marshal without HTML escaping: llama-server writes "<"
// as is, and text tool calls are full of angle brackets.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
