package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// quoteYAML writes s as a YAML double-quoted scalar (a JSON string is
// one), so a model id with ':' or '/' stays one value.
func quoteYAML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// renderModels is the commented models.yml for what troupe init found:
// the servers found uncommented (the environment's endpoint the default,
// else the local llama-server), the rest as comments to take up.
func renderModels(f findings) string {
	var b strings.Builder
	b.WriteString(`# troupe's models: the providers and models sessions talk to.
#
# Written by ` + "`troupe init`" + ` from what it found on this machine; edit it
# freely, troupe never rewrites it. The daemon reads it when it starts
# (` + "`troupe daemon reload`" + ` reads it again). Every field and the order in
# which flags (--provider, --model, --base-url), this file and the
# environment apply: ` + "`go doc github.com/troupehq/troupe/runtime/modelconfig`" + `.
# ` + "`troupe doctor`" + ` checks that each provider below answers.

`)
	writeDefault(&b, f)
	b.WriteString("providers:\n")
	if s := f.endpoint; s != nil {
		fmt.Fprintf(&b, "  # The OpenAI-compatible server $OPENAI_BASE_URL named when troupe init ran.\n")
		writeServer(&b, "endpoint", s, "")
	}
	writeLocal(&b, f.llama)
	for _, k := range f.keys {
		writeKey(&b, k)
	}
	if len(f.configs) > 0 {
		b.WriteString("\n  # llama-server configs in this home run with --provider llama --model NAME\n")
		b.WriteString("  # (troupe starts the server itself): " + strings.Join(f.configs, ", ") + "\n")
	}
	return b.String()
}

// writeDefault selects the first server that listed a model: the one the
// environment names, else the local llama-server.
func writeDefault(b *strings.Builder, f findings) {
	for _, c := range []struct {
		name string
		s    *server
	}{{"endpoint", f.endpoint}, {"local", f.llama}} {
		if c.s != nil && len(c.s.models) > 0 {
			fmt.Fprintf(b, "# Used when a command names no --provider/--model.\ndefault:\n  provider: %s\n  model: %s\n\n", c.name, quoteYAML(c.s.models[0]))
			return
		}
	}
	b.WriteString("# Uncomment to use a model without naming it on every command:\n# default:\n#   provider: local\n#   model: local-model\n\n")
}

// writeServer writes provider name at s, its models as it listed them
// (or a commented example when it listed none).
func writeServer(b *strings.Builder, name string, s *server, note string) {
	fmt.Fprintf(b, "  %s:\n    base_url: %s\n", name, quoteYAML(s.baseURL))
	if s.apiEnv != "" {
		fmt.Fprintf(b, "    api_key_env: %s\n", s.apiEnv)
	}
	if note != "" {
		b.WriteString(note)
	}
	if len(s.models) == 0 {
		why := "it listed no models"
		if s.err != nil {
			why = "listing its models failed: " + oneLine(s.err.Error(), 200)
		}
		fmt.Fprintf(b, "    # %s; name the one to use:\n    # models:\n    #   - id: MODEL\n    #     context_window: 32768\n", why)
		return
	}
	b.WriteString("    models:\n")
	for _, id := range s.models {
		fmt.Fprintf(b, "      - id: %s\n        # context_window: 32768   # the model's window, for compaction\n", quoteYAML(id))
	}
}

// writeLocal writes the local llama-server's provider as it answered, or
// commented out, to take up once one runs: what init leaves uncommented
// answers (troupe doctor checks it does).
func writeLocal(b *strings.Builder, s *server) {
	if s != nil {
		b.WriteString("\n  # The llama-server answering on 127.0.0.1:8080 when troupe init ran.\n")
		writeServer(b, "local", s, "")
		return
	}
	b.WriteString(`
  # A llama-server on this machine (none answered on 127.0.0.1:8080 when
  # troupe init ran): start one with ` + "`llama-server -m MODEL.gguf --port 8080\n" +
		"  # --alias local-model`" + ` and uncomment. A loopback or private address
  # needs no API key.
  # local:
  #   base_url: http://127.0.0.1:8080/v1
  #   models:
  #     - id: local-model           # the name the server answers to (--alias)
  #       context_window: 32768     # as the server's --ctx-size
  #       tool_style: auto          # native | text | auto
`)
}

// writeKey writes a hosted provider whose key the environment holds, all
// commented: using it spends money, so the user decides.
func writeKey(b *strings.Builder, k providerKey) {
	if k.env != "" {
		fmt.Fprintf(b, "\n  # $%s is set: %s's own API. Uncomment to use it.\n", k.env, k.name)
	} else {
		fmt.Fprintf(b, "\n  # AWS credentials and $AWS_REGION are set: Amazon Bedrock. Uncomment to use it.\n")
	}
	fmt.Fprintf(b, "  # %s:\n  #   api: %s\n", k.name, k.api)
	if k.env != "" {
		fmt.Fprintf(b, "  #   api_key_env: %s\n", k.env)
	}
	if k.region != "" {
		fmt.Fprintf(b, "  #   region: %s\n", quoteYAML(k.region))
	}
	b.WriteString("  #   models:\n")
	for _, id := range k.models {
		fmt.Fprintf(b, "  #     - id: %s\n", quoteYAML(id))
	}
}
