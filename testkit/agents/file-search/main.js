// A file-search agent: a synchronous tool, an async one awaiting a
// command, and one that may throw.
set_system_prompt("You find things in the files of the current directory.");

register_tool({
  name: "list_files",
  description: "List the entries of a directory.",
  parameters: {type: "object", properties: {path: {type: "string"}}},
  execute: function (args_json) {
    var args = JSON.parse(args_json);
    eprint(" → Listing " + (args.path || "."));
    return fs.list_dir(args.path || ".").join("\n");
  }
});

register_tool({
  name: "search",
  description: "Search for a text pattern in files.",
  parameters: {type: "object", properties: {path: {type: "string"}, pattern: {type: "string"}}},
  execute: async function (args_json) {
    var args = JSON.parse(args_json);
    eprint(" → Searching for " + args.pattern);
    var out = await run_command("grep -rn " + args.pattern + " " + (args.path || "."));
    // grep -r lists in directory order; sorted, the answer is stable.
    return out.trim().split("\n").sort().join("\n") || "no match";
  }
});

register_tool({
  name: "read_file",
  description: "Read the full contents of a file.",
  parameters: {type: "object", properties: {path: {type: "string"}}},
  execute: function (args_json) {
    return fs.read_text(JSON.parse(args_json).path);
  }
});
