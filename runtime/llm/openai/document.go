package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

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
func decodeDocument(ctx context.Context, body io.Reader, a *llm.Assembler) error {
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
		return llm.ParseErrorBody(http.StatusOK, raw)
	}
	if len(w.Choices) == 0 {
		return &llm.Error{Type: llm.TypeInvalidResponse, Message: "chat completion has no choices"}
	}
	a.ID, a.Model = w.ID, w.Model
	ch := w.Choices[0]
	m := ch.Message
	thinking := m.ReasoningContent
	if thinking == "" {
		thinking = m.Reasoning
	}
	if err := a.Text(llm.ChunkThinking, thinking); err != nil {
		return err
	}
	if err := a.Text(llm.ChunkText, contentText(m.Content)); err != nil {
		return err
	}
	for i, tc := range m.ToolCalls {
		index := i
		if tc.Index != nil {
			index = *tc.Index
		}
		args := argumentsText(tc.Function.Arguments)
		if err := a.ToolCall(index, tc.ID, tc.Function.Name, args); err != nil {
			return err
		}
	}
	if ch.FinishReason != nil {
		a.Finish = llm.FinishReason(*ch.FinishReason)
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
		return a.SetUsage(u)
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

func argumentsText(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}
