package acpclient

// NewSession creates a session in cwd; it returns the session's id and
// this client's id.
func (c *Client) NewSession(cwd string) (string, string) {
	c.t.Helper()
	var res struct {
		SessionID string `json:"sessionId"`
		Meta      struct {
			Hydra struct {
				ClientID string `json:"clientId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})).Decode(c.t, &res)
	return res.SessionID, res.Meta.Hydra.ClientID
}

// Attached is session/attach's answer.
type Attached struct {
	SessionID        string       `json:"sessionId"`
	ClientID         string       `json:"clientId"`
	HistoryPolicy    string       `json:"historyPolicy"`
	Replayed         int          `json:"replayed"`
	ConnectedClients []ClientInfo `json:"connectedClients"`
}

// ClientInfo is one entry of connectedClients.
type ClientInfo struct {
	ClientID string `json:"clientId"`
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
}

// Attach attaches with params and returns the frames replayed before the
// answer, and the answer.
func (c *Client) Attach(params map[string]any) ([]Frame, Attached) {
	c.t.Helper()
	id := c.Call("session/attach", params)
	fs := c.Until(func(f Frame) bool { return f.Answers(id) })
	var res Attached
	fs[len(fs)-1].Decode(c.t, &res)
	return fs[:len(fs)-1], res
}

// Prompt sends session/prompt with one text block and returns its id.
func (c *Client) Prompt(sid, text string) int {
	return c.Call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}
