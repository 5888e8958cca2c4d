package agentmcp

// Names of the servers, as the agent's mcpServers and the routes name them.
const (
	StdinServer  = "hydra-acp-stdin"
	RecallServer = "hydra-acp-recall"
)

// Descriptor is an ACP mcpServers entry for one of the daemon's servers.
type Descriptor struct {
	Type    string   `json:"type"`
	Name    string   `json:"name"`
	URL     string   `json:"url"`
	Headers []Header `json:"headers"`
}

// Header is one of a descriptor's HTTP headers.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Descriptor is the entry that reaches server name at base (the daemon's
// URL) as session id.
func (t Tokens) Descriptor(base, name, sessionID string) Descriptor {
	return Descriptor{Type: "http", Name: name, URL: base + "/mcp/" + name,
		Headers: []Header{{Name: "Authorization", Value: "Bearer " + t.Mint(sessionID)}}}
}
