// Tries more than agent.yaml grants; every attempt is denied.
set_system_prompt("You test your limits.");

register_tool({
  name: "run",
  description: "Run a shell command and return its output.",
  parameters: {type: "object", properties: {command: {type: "string"}}},
  execute: async function (args_json) {
    return await run_command(JSON.parse(args_json).command);
  }
});

register_tool({
  name: "write",
  description: "Write a file.",
  parameters: {type: "object", properties: {path: {type: "string"}, text: {type: "string"}}},
  execute: function (args_json) {
    var a = JSON.parse(args_json);
    fs.write_text(a.path, a.text);
    return "written";
  }
});

register_tool({
  name: "get",
  description: "Fetch a URL.",
  parameters: {type: "object", properties: {url: {type: "string"}}},
  execute: async function (args_json) {
    return await http_get(JSON.parse(args_json).url);
  }
});
