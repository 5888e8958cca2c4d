package acp

// The JSON-RPC wire types are transports/jsonrpc's; ACP adds hydra's
// error codes to JSON-RPC's own (the spec's table).
const (
	CodeSessionNotFound   = -32001
	CodeAgentNotInstalled = -32005
	CodePermissionDenied  = -32011
	CodeAlreadyAttached   = -32012
)
