// Package llamaconfig is troupe's llama-server configs: one YAML file per
// server in $TROUPE_HOME/configs/<name>.yml, what each field means, how a
// config is checked (every problem named with its field), how a new one is
// made from a model file and the machine's memory, and the llama-server
// command line a config stands for.
//
// A config:
//
//	model_path: /home/me/.troupe/models/owner/repo/model-Q4_K_M.gguf
//	mmproj_path: /home/me/.troupe/models/owner/repo/mmproj-F16.gguf  # optional
//	ctx: 8192            # whole context, shared by the slots; 0 takes the model's
//	n_slots: 1           # parallel slots (-np); each gets ctx/n_slots
//	threads: 0           # 0 leaves it to llama-server
//	gpu_layers: auto     # auto, all or a number (-ngl)
//	fit: {enabled: false, target_mib: [1024]}  # --fit on|off, --fit-target
//	host: 127.0.0.1
//	port: 0              # 0: troupe picks a free port at each start
//	api_key: ""
//	server_path: ""      # llama-server's path; "" looks it up in $PATH
//	extra_args: [--flash-attn]
//	sampling: {temperature: 0.7, top_k: 40, top_p: 0.95, min_p: 0.05, repeat_penalty: 1.0}
//	tool_style: auto     # native, text or auto, as in models.yml
//
// The command line is explicit (--port --host -c -np --jinja). The defaults
// every config shares (the Hugging Face token, the endpoint) are in
// $TROUPE_HOME/llama.yml.
//
// It does not start or watch a server (actors/servers does) and imports
// nothing of troupe but runtime/gguf.
package llamaconfig
