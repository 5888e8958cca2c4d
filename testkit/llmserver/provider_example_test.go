package llmserver_test

import (
	"context"
	"fmt"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func ExampleNewProvider() {
	p, err := llmserver.NewProvider(llmserver.Script{
		Replies: []llmserver.Reply{
			llmserver.Steps(
				llmserver.Thinking("Look first."),
				llmserver.ToolCallChunks("", "read_file", `{"path":`, `"go.mod"}`),
			),
			llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 429})),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "read go.mod"}}, Stream: true}
	resp, err := p.Stream(context.Background(), req, func(c llm.Chunk) error {
		if c.Kind == llm.ChunkToolCall {
			fmt.Printf("delta %q %q %q\n", c.ToolCall.ID, c.ToolCall.Name, c.ToolCall.ArgumentsDelta)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.FinishReason, resp.Message.ToolCalls[0].Arguments)

	_, err = p.Stream(context.Background(), req, nil)
	fmt.Println(err, llm.IsRetryable(err))
	fmt.Println(len(p.Requests()))
	// Output:
	// delta "call_0" "read_file" ""
	// delta "" "" "{\"path\":"
	// delta "" "" "\"go.mod\"}"
	// tool_calls {"path":"go.mod"}
	// chat completions: llm error 429 rate_limit_error: Too Many Requests true
	// 2
}
