package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Buckets for latencies measured in seconds: from a fast commit (a few
// hundred microseconds) to a slow model's first token or a long tool call.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}

// The store.
var (
	EventsAppended = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "troupe_events_appended_total",
		Help: "Events committed to the store.",
	})
	CommitSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "troupe_store_commit_seconds",
		Help:    "Time one group commit of the store writer took.",
		Buckets: latencyBuckets,
	})
	EventsReplayed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "troupe_events_replayed_total",
		Help: "Stored events replayed to subscribers (clients attaching, loading, resuming); its rate is the replay rate.",
	})
	LeaseFenced = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "troupe_store_fenced_writes_total",
		Help: "Sessions whose writes the store refused because another process took their lease over (this one stalled past the lease TTL): nothing of them was written.",
	})
)

// A cluster (troupe daemon --cluster); every member serves its own.
var (
	ClusterMembers = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "troupe_cluster_members",
		Help: "Members in this member's latest view of the cluster's topology, itself included.",
	})
	ClusterSessionsWoken = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "troupe_cluster_orphans_woken_total",
		Help: "Orphaned sessions (live in the shared store, their lease holder gone) this member woke, by outcome (ok, error).",
	}, []string{"outcome"})
)

// Prompts and models.
var (
	PromptFirstUpdateSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "troupe_prompt_first_update_seconds",
		Help:    "Time from a prompt being queued to the first output its run streams.",
		Buckets: latencyBuckets,
	})
	ModelFirstTokenSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "troupe_model_time_to_first_token_seconds",
		Help:    "Time from a model request to its first streamed chunk.",
		Buckets: latencyBuckets,
	})
	ModelTokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "troupe_model_tokens_total",
		Help: "Tokens models reported, by kind: input (not from the cache), output, cache_read, cache_write.",
	}, []string{"kind"})
	ModelRetries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "troupe_model_retries_total",
		Help: "Model requests retried after a retryable error.",
	})
)

// Tools and permissions.
var (
	ToolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "troupe_tool_calls_total",
		Help: "Tool calls run, by tool (built-ins by name, every MCP tool as mcp, any other as other) and outcome (ok, error, cancelled).",
	}, []string{"tool", "outcome"})
	ToolCallSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "troupe_tool_call_duration_seconds",
		Help:    "Time a tool call ran, by tool (as troupe_tool_calls_total).",
		Buckets: latencyBuckets,
	}, []string{"tool"})
	PermissionRequests = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "troupe_permission_requests_total",
		Help: "Tool calls that waited for a person's permission.",
	})
	PermissionWaitSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "troupe_permission_wait_seconds",
		Help:    "Time a permission request waited for its answer, by outcome (allowed, denied, cancelled).",
		Buckets: latencyBuckets,
	}, []string{"outcome"})
)

// Processes and actors.
var (
	LlamaServerRestarts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "troupe_llama_server_restarts_total",
		Help: "llama-server programs started again after they died on their own.",
	})
	AgentRestarts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "troupe_agent_restarts_total",
		Help: "External ACP agent programs started again after they exited.",
	})
	ActorRestarts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "troupe_actor_restarts_total",
		Help: "Actors their supervisor restarted after a failure, by kind (session, store-writer, transports, ...).",
	}, []string{"kind"})
)

// Clients.
var (
	WebSocketClients = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "troupe_websocket_clients",
		Help: "ACP WebSocket connections open now.",
	})
	AuthFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "troupe_auth_failures_total",
		Help: "Requests refused for their credential, by reason: token (missing, invalid or revoked), password (a wrong login), limited (a login refused by the attempt limit).",
	}, []string{"reason"})
)

// updated lists every collector the runtime updates, for NewRegistry.
func updated() []prometheus.Collector {
	return []prometheus.Collector{
		EventsAppended, CommitSeconds, EventsReplayed, LeaseFenced,
		ClusterMembers, ClusterSessionsWoken,
		PromptFirstUpdateSeconds, ModelFirstTokenSeconds, ModelTokens, ModelRetries,
		ToolCalls, ToolCallSeconds, PermissionRequests, PermissionWaitSeconds,
		LlamaServerRestarts, AgentRestarts, ActorRestarts,
		WebSocketClients, AuthFailures,
	}
}
