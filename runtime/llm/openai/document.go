package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/troupehq/troupe/runtime/llm"
)

// maxDocument bounds a non-streamed reply; tens of megabytes is already far
// beyond any context window.
const maxDocument = 64 << 20

type wireResponse struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type wireChoice struct {
	Message      wireReply `json:"message"`
	FinishReason *string   `json:"finish_reason"`
}

type wireReply struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// decodeDocument reads a non-streamed chat.completion and passes its parts
// through a, so a caller sees the same chunks, only all at once.
func decodeDocument(ctx context.Context, body io.Reader, a *assembler) error {
	raw, err := io.ReadAll(io.LimitReader(body, maxDocument))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return llm.NetworkError(err)
	}
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil {
		return &llm.Error{Type: llm.TypeInvalidResponse,
			Message: "bad chat completion: " + string(truncate(raw, 200)), Err: err}
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		return parseError(200, raw)
	}
	if len(w.Choices) == 0 {
		return &llm.Error{Type: llm.TypeInvalidResponse, Message: "chat completion has no choices"}
	}
	a.id, a.model = w.ID, w.Model
	ch := w.Choices[0]
	m := ch.Message
	thinking := m.ReasoningContent
	if thinking == "" {
		thinking = m.Reasoning
	}
	if thinking != "" {
		if err := a.text(llm.ChunkThinking, []byte(thinking)); err != nil {
			return sinkError(err)
		}
	}
	if text := contentText(m.Content); text != "" {
		if err := a.text(llm.ChunkText, []byte(text)); err != nil {
			return sinkError(err)
		}
	}
	for i, tc := range m.ToolCalls {
		index := i
		if tc.Index != nil {
			index = *tc.Index
		}
		args := argumentsText(tc.Function.Arguments)
		if err := a.toolCall(index, []byte(tc.ID), []byte(tc.Function.Name), args); err != nil {
			return sinkError(err)
		}
	}
	if ch.FinishReason != nil {
		a.finish = llm.FinishReason(*ch.FinishReason)
	}
	if w.Usage != nil {
		u := llm.Usage{
			PromptTokens:     w.Usage.PromptTokens,
			CompletionTokens: w.Usage.CompletionTokens,
			TotalTokens:      w.Usage.TotalTokens,
		}
		if w.Usage.PromptTokensDetails != nil {
			u.CachedTokens = w.Usage.PromptTokensDetails.CachedTokens
		}
		if err := a.setUsage(u); err != nil {
			return sinkError(err)
		}
	}
	return nil
}

// contentText accepts content as a string, null, or an array of parts of
// which the text ones are joined.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []byte
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text...)
		}
	}
	return string(out)
}

func argumentsText(raw json.RawMessage) []byte {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return []byte(s)
	}
	if string(raw) == "null" {
		return nil
	}
	return raw
}

func sinkError(err error) error { return fmt.Errorf("sink: %w", err) }
