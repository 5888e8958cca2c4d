package llmserver

// The /v1/models and /props bodies copy the shape of the NEW llama-server
// fixtures, trimmed to fields a client plausibly reads; the numbers that do
// not come from the Script are the fixture model's.

type modelsJSON struct {
	Models []ollamaModel `json:"models"`
	Object string        `json:"object"`
	Data   []modelEntry  `json:"data"`
}

type ollamaModel struct {
	Name         string        `json:"name"`
	Model        string        `json:"model"`
	ModifiedAt   string        `json:"modified_at"`
	Size         string        `json:"size"`
	Digest       string        `json:"digest"`
	Type         string        `json:"type"`
	Description  string        `json:"description"`
	Tags         []string      `json:"tags"`
	Capabilities []string      `json:"capabilities"`
	Parameters   string        `json:"parameters"`
	Details      ollamaDetails `json:"details"`
}

type ollamaDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

type modelEntry struct {
	ID      string    `json:"id"`
	Aliases []string  `json:"aliases"`
	Tags    []string  `json:"tags"`
	Object  string    `json:"object"`
	Created int64     `json:"created"`
	OwnedBy string    `json:"owned_by"`
	Meta    modelMeta `json:"meta"`
}

type modelMeta struct {
	VocabType bool   `json:"vocab_type"`
	NVocab    int    `json:"n_vocab"`
	NCtx      int    `json:"n_ctx"`
	NCtxTrain int    `json:"n_ctx_train"`
	NEmbd     int    `json:"n_embd"`
	NParams   int    `json:"n_params"`
	Size      int    `json:"size"`
	Ftype     string `json:"ftype"`
}

func (s *Server) modelsBody() ([]byte, error) {
	sc := s.script.script
	return marshal(modelsJSON{
		Models: []ollamaModel{{
			Name: sc.Model, Model: sc.Model, Type: "model",
			Tags: []string{""}, Capabilities: []string{"completion"},
			Details: ollamaDetails{Format: "gguf", Families: []string{""}},
		}},
		Object: "list",
		Data: []modelEntry{{
			ID: sc.Model, Aliases: []string{sc.Model}, Tags: []string{},
			Object: "model", Created: s.cfg.now().Unix(), OwnedBy: "llamacpp",
			Meta: modelMeta{
				VocabType: true, NVocab: 32000, NCtx: sc.ContextSize,
				NCtxTrain: max(sc.ContextSize, 4096), NEmbd: 8,
				NParams: 513048, Size: 1026144, Ftype: "F16",
			},
		}},
	})
}

type propsJSON struct {
	DefaultGenerationSettings generationSettings `json:"default_generation_settings"`
	TotalSlots                int                `json:"total_slots"`
	ModelAlias                string             `json:"model_alias"`
	ModelPath                 string             `json:"model_path"`
	Modalities                modalities         `json:"modalities"`
	EndpointSlots             bool               `json:"endpoint_slots"`
	EndpointProps             bool               `json:"endpoint_props"`
	EndpointMetrics           bool               `json:"endpoint_metrics"`
	ChatTemplate              string             `json:"chat_template"`
	ChatTemplateCaps          templateCaps       `json:"chat_template_caps"`
	BosToken                  string             `json:"bos_token"`
	EosToken                  string             `json:"eos_token"`
	BuildInfo                 string             `json:"build_info"`
	IsSleeping                bool               `json:"is_sleeping"`
}

type generationSettings struct {
	Params generationParams `json:"params"`
	NCtx   int              `json:"n_ctx"`
}

type generationParams struct {
	Seed        uint32 `json:"seed"`
	Temperature cfloat `json:"temperature"`
	TopK        int    `json:"top_k"`
	TopP        cfloat `json:"top_p"`
	MinP        cfloat `json:"min_p"`
	MaxTokens   int    `json:"max_tokens"`
	NPredict    int    `json:"n_predict"`
	Stream      bool   `json:"stream"`
}

type modalities struct {
	Vision bool `json:"vision"`
	Video  bool `json:"video"`
	Audio  bool `json:"audio"`
}

type templateCaps struct {
	SupportsObjectArguments   bool `json:"supports_object_arguments"`
	SupportsParallelToolCalls bool `json:"supports_parallel_tool_calls"`
	SupportsPreserveReasoning bool `json:"supports_preserve_reasoning"`
	SupportsReasoningEffort   bool `json:"supports_reasoning_effort"`
	SupportsStringContent     bool `json:"supports_string_content"`
	SupportsSystemRole        bool `json:"supports_system_role"`
	SupportsToolCalls         bool `json:"supports_tool_calls"`
	SupportsTools             bool `json:"supports_tools"`
	SupportsTypedContent      bool `json:"supports_typed_content"`
}

// chatMLTemplate is the fallback template llama-server reports for a model
// without one.
const chatMLTemplate = "{%- for message in messages -%}\n  {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}\n{%- endfor -%}\n{%- if add_generation_prompt -%}\n  {{- '<|im_start|>assistant\n' -}}\n{%- endif -%}"

func (s *Server) propsBody() ([]byte, error) {
	sc := s.script.script
	return marshal(propsJSON{
		DefaultGenerationSettings: generationSettings{
			Params: generationParams{
				Seed: 4294967295, Temperature: 0.800000011920929, TopK: 40,
				TopP: 0.949999988079071, MinP: 0.05000000074505806,
				MaxTokens: -1, NPredict: -1,
			},
			NCtx: sc.ContextSize,
		},
		TotalSlots:      1,
		ModelAlias:      sc.Model,
		ModelPath:       sc.Model + ".gguf",
		EndpointSlots:   true,
		EndpointMetrics: false,
		ChatTemplate:    chatMLTemplate,
		ChatTemplateCaps: templateCaps{
			SupportsParallelToolCalls: sc.SupportsToolCalls,
			SupportsStringContent:     true,
			SupportsSystemRole:        true,
			SupportsToolCalls:         sc.SupportsToolCalls,
			SupportsTools:             sc.SupportsToolCalls,
		},
		BosToken:  "<s>",
		EosToken:  "</s>",
		BuildInfo: systemFingerprint,
	})
}
