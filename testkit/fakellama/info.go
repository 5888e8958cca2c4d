package fakellama

import "net/http"

// The tiny model's figures (testdata/models.body): a fake has no model file
// to read them from, and clients only check their shape.
const (
	nVocab    = 32000
	nCtxTrain = 4096
	nEmbd     = 8
	nParams   = 513048
	modelSize = 1026144
)

// chatML is the template llama-server falls back to for a model without one.
const chatML = "{%- for message in messages -%}\n  {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}\n{%- endfor -%}\n{%- if add_generation_prompt -%}\n  {{- '<|im_start|>assistant\n' -}}\n{%- endif -%}"

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

func (s *Server) slotCtx() int { return s.opts.CtxSize / s.opts.Slots }

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	id := s.opts.modelID()
	writeJSON(w, map[string]any{
		"models": []map[string]any{{
			"name": id, "model": id, "modified_at": "", "size": "", "digest": "", "type": "model",
			"description": "", "tags": []string{""}, "capabilities": []string{"completion"}, "parameters": "",
			"details": map[string]any{"parent_model": "", "format": "gguf", "family": "", "families": []string{""},
				"parameter_size": "", "quantization_level": ""},
		}},
		"object": "list",
		"data": []map[string]any{{
			"id": id, "aliases": []string{id}, "tags": []string{}, "object": "model",
			"created": s.created, "owned_by": "llamacpp",
			"meta": modelMeta{VocabType: true, NVocab: nVocab, NCtx: s.slotCtx(), NCtxTrain: nCtxTrain,
				NEmbd: nEmbd, NParams: nParams, Size: modelSize, Ftype: "F16"},
		}},
	})
}

func (s *Server) props(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"default_generation_settings": map[string]any{
			"params": map[string]any{"seed": 4294967295, "temperature": 0.8, "top_k": 40, "top_p": 0.95,
				"min_p": 0.05, "max_tokens": -1, "n_predict": -1, "stream": false, "chat_format": "Content-only"},
			"n_ctx": s.slotCtx(),
		},
		"total_slots":    s.opts.Slots,
		"model_alias":    s.opts.modelID(),
		"model_ftype":    "F16",
		"model_path":     s.opts.ModelPath,
		"modalities":     map[string]bool{"vision": false, "video": false, "audio": false},
		"endpoint_slots": true, "endpoint_props": false, "endpoint_metrics": false,
		"chat_template": chatML,
		// The fake answers scripted tool calls, so unlike the tiny model's
		// ChatML fallback it says it supports them.
		"chat_template_caps": map[string]bool{
			"supports_object_arguments": false, "supports_parallel_tool_calls": true,
			"supports_preserve_reasoning": false, "supports_reasoning_effort": false,
			"supports_string_content": true, "supports_system_role": true,
			"supports_tool_calls": true, "supports_tools": true, "supports_typed_content": false,
		},
		"bos_token": "<s>", "eos_token": "</s>", "build_info": "b0-fake",
		"is_sleeping": false, "cors_proxy_enabled": false,
	})
}

type slot struct {
	ID           int  `json:"id"`
	NCtx         int  `json:"n_ctx"`
	Speculative  bool `json:"speculative"`
	IsProcessing bool `json:"is_processing"`
}

func (s *Server) slots(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	busy := s.running
	s.mu.Unlock()
	out := make([]slot, s.opts.Slots)
	for i := range out {
		out[i] = slot{ID: i, NCtx: s.slotCtx(), IsProcessing: i < busy}
	}
	writeJSON(w, out)
}
