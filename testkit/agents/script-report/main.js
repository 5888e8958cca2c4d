// A script: runs once; what it prints is the result.
memory.set("greeting", {text: "hello"});
print("runtime", hugind_version());
print("cwd has notes.txt:", fs.list_dir(".").indexOf("notes.txt") >= 0);
eprint("working...");
(async function () {
  await new Promise(function (resolve) { setTimeout(resolve, 20); });
  var out = await run_command("echo from-a-command");
  print(memory.get("greeting").text, out.trim());
})();
