package llmserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
)

// The structs below fix the key order of OpenAI's Responses API as its
// public reference prints it: "type" first and "sequence_number" last in
// every event, the response object's keys in the reference's order.

type respEvent struct {
	Type     string      `json:"type"`
	Response *respObject `json:"response"`
	Seq      int         `json:"sequence_number"`
}

type respItemEvent struct {
	Type        string `json:"type"`
	OutputIndex int    `json:"output_index"`
	Item        any    `json:"item"`
	Seq         int    `json:"sequence_number"`
}

type respPartEvent struct {
	Type         string     `json:"type"`
	ItemID       string     `json:"item_id"`
	OutputIndex  int        `json:"output_index"`
	ContentIndex int        `json:"content_index"`
	Part         outputText `json:"part"`
	Seq          int        `json:"sequence_number"`
}

type respTextDelta struct {
	Type         string `json:"type"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Delta        string `json:"delta"`
	Seq          int    `json:"sequence_number"`
}

type respTextDone struct {
	Type         string `json:"type"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Text         string `json:"text"`
	Seq          int    `json:"sequence_number"`
}

type respSummaryPart struct {
	Type         string      `json:"type"`
	ItemID       string      `json:"item_id"`
	OutputIndex  int         `json:"output_index"`
	SummaryIndex int         `json:"summary_index"`
	Part         summaryText `json:"part"`
	Seq          int         `json:"sequence_number"`
}

type respSummaryDelta struct {
	Type         string `json:"type"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	Delta        string `json:"delta"`
	Seq          int    `json:"sequence_number"`
}

type respSummaryDone struct {
	Type         string `json:"type"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	Text         string `json:"text"`
	Seq          int    `json:"sequence_number"`
}

type respArgsDelta struct {
	Type        string `json:"type"`
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Delta       string `json:"delta"`
	Seq         int    `json:"sequence_number"`
}

type respArgsDone struct {
	Type        string `json:"type"`
	ItemID      string `json:"item_id"`
	Name        string `json:"name"`
	OutputIndex int    `json:"output_index"`
	Arguments   string `json:"arguments"`
	Seq         int    `json:"sequence_number"`
}

// respObject is the response object of response.created, .in_progress,
// .completed, .incomplete and .failed, and the body of a non-streaming
// answer. What the request set is echoed; the rest is OpenAI's defaults.
type respObject struct {
	ID                 string             `json:"id"`
	Object             string             `json:"object"`
	CreatedAt          int64              `json:"created_at"`
	Status             string             `json:"status"`
	Error              *respError         `json:"error"`
	IncompleteDetails  *incompleteDetails `json:"incomplete_details"`
	Instructions       any                `json:"instructions"`
	MaxOutputTokens    any                `json:"max_output_tokens"`
	Model              string             `json:"model"`
	Output             []any              `json:"output"`
	ParallelToolCalls  any                `json:"parallel_tool_calls"`
	PreviousResponseID any                `json:"previous_response_id"`
	Reasoning          respReasoning      `json:"reasoning"`
	Store              any                `json:"store"`
	Temperature        any                `json:"temperature"`
	Text               respTextConfig     `json:"text"`
	ToolChoice         any                `json:"tool_choice"`
	Tools              any                `json:"tools"`
	TopP               any                `json:"top_p"`
	Truncation         string             `json:"truncation"`
	Usage              *respUsage         `json:"usage"`
	User               any                `json:"user"`
	Metadata           map[string]string  `json:"metadata"`
}

type respError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type incompleteDetails struct {
	Reason string `json:"reason"`
}

type respReasoning struct {
	Effort  any `json:"effort"`
	Summary any `json:"summary"`
}

type respTextConfig struct {
	Format struct {
		Type string `json:"type"`
	} `json:"format"`
}

type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

func (u Usage) responses() *respUsage {
	r := &respUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	r.InputTokensDetails.CachedTokens = u.CachedTokens
	r.TotalTokens = u.TotalTokens
	if r.TotalTokens == 0 {
		r.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return r
}

type messageItem struct {
	ID      string       `json:"id"`
	Type    string       `json:"type"`
	Status  string       `json:"status"`
	Content []outputText `json:"content"`
	Role    string       `json:"role"`
}

type outputText struct {
	Type        string `json:"type"`
	Annotations []any  `json:"annotations"`
	Text        string `json:"text"`
}

type reasoningItem struct {
	ID               string        `json:"id"`
	Type             string        `json:"type"`
	EncryptedContent string        `json:"encrypted_content,omitempty"`
	Summary          []summaryText `json:"summary"`
}

type summaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type functionCallItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
}

// responsesID is an OpenAI-looking id, prefix_ and 48 hex digits, derived
// from the request's number n and k so that reruns produce the same bytes.
func responsesID(prefix string, n, k int) string {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(k)+0x7265737073))
	b := []byte(prefix + "_")
	for range 48 {
		b = strconv.AppendUint(b, uint64(rng.IntN(16)), 16)
	}
	return string(b)
}

// encryptedReasoning stands in for the encrypted content of a reasoning
// item: opaque-looking, but derived from the summary so a test can tell
// which reasoning a client sent back.
func encryptedReasoning(summary string) string {
	return "gAAAAA" + base64.RawURLEncoding.EncodeToString([]byte(summary))
}

// responsesErrorBody renders an error the way OpenAI does,
// {"error":{"message","type","param","code"}}. type defaults from the
// status as OpenAI's do; code is null but for a 429 (rate_limit_exceeded).
// Extra's "code" and "param" replace those members; its other members
// follow, sorted.
func responsesErrorBody(e APIError) ([]byte, error) {
	extra := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(e.Extra)) > 0 {
		if err := json.Unmarshal(e.Extra, &extra); err != nil {
			return nil, fmt.Errorf("error extra must be a JSON object: %w", err)
		}
	}
	code := json.RawMessage("null")
	if e.code() == http.StatusTooManyRequests {
		code = json.RawMessage(`"rate_limit_exceeded"`)
	}
	if c, ok := extra["code"]; ok {
		code = c
	}
	param := json.RawMessage("null")
	if p, ok := extra["param"]; ok {
		param = p
	}
	typ := e.Type
	if typ == "" {
		typ = responsesErrorType(e.code())
	}
	msg, err := marshal(e.message())
	if err != nil {
		return nil, err
	}
	t, err := marshal(typ)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"error":{"message":%s,"type":%s,"param":%s,"code":%s`, msg, t, param, code)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if k != "code" && k != "param" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, `,%q:%s`, k, extra[k])
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

func responsesErrorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "requests"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// responsesFailureCode is the error code of a response.failed event for a
// stream_error step: its type when the script set one, else what OpenAI
// says for the status.
func responsesFailureCode(e APIError) string {
	if e.Type != "" {
		return e.Type
	}
	switch c := e.code(); {
	case c == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case c >= 500:
		return "server_error"
	}
	return "invalid_prompt"
}

// Output item types.
const (
	itemMessage      = "message"
	itemReasoning    = "reasoning"
	itemFunctionCall = "function_call"
)
