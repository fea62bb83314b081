#!/usr/bin/env node
'use strict';
const { loadCli, bundleFor, TOKEN_BUNDLE, MCP_BUNDLE } = require('./load-cli.js');

const argv = process.argv.slice(2);
if (argv[0] === 'token') {
  // kubectl and git run `token` many times a minute: a valid cached token is printed by a bundle without
  // commander or the flows; anything else it hands, untouched, to the command line.
  loadCli('auto', TOKEN_BUNDLE)
    .cli.tokenFromCache(argv, process.env, process.stdout)
    .then((done) => (done ? undefined : loadCli('auto', bundleFor(argv)).cli.main(argv)));
} else if (argv[0] === 'mcp') {
  // With a valid cached login the session needs neither commander nor the flows; anything else (a 401,
  // another option) goes to the command line, which starts over and authorizes.
  loadCli('auto', MCP_BUNDLE)
    .cli.mcpFromCache(argv)
    .then((code) => (code === undefined ? loadCli('auto', bundleFor(argv)).cli.main(argv) : (process.exitCode = code)));
} else {
  loadCli('auto', bundleFor(argv)).cli.main(argv);
}
