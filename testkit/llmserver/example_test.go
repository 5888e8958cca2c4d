package llmserver_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/troupehq/troupe/testkit/llmserver"
)

// A test normally uses New(t, ...); Start is the same without a testing.TB.
func Example() {
	srv, err := llmserver.Start(llmserver.Script{
		Replies: []llmserver.Reply{
			llmserver.Steps(
				llmserver.ToolCall("call_1", "read_file", `{"path":"go.mod"}`),
			),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"tiny","messages":[{"role":"user","content":"read go.mod"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"finish_reason":"tool_calls"`))

	req := srv.ChatRequests()[0]
	fmt.Println(req.Path, req.JSON["model"])
	// Output:
	// 200 true
	// /v1/chat/completions tiny
}

func ExampleRenderTextToolCall() {
	text, err := llmserver.RenderTextToolCall(llmserver.FormatGemma, llmserver.InnerCall, "run",
		map[string]string{"command": "ls /Applications"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(text)
	// Output: <|tool_call>call:run{command: "ls /Applications"}<tool_call|>
}
