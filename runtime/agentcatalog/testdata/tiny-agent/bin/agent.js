#!/usr/bin/env node
process.stdout.write("tiny-acp " + process.argv.slice(2).join(" ") + "\n");
