#!/usr/bin/env node
'use strict';
const { loadCli, bundleFor, TOKEN_BUNDLE } = require('./load-cli.js');

const argv = process.argv.slice(2);
if (argv[0] === 'token') {
  // kubectl and git run `token` many times a minute: a valid cached token is printed by a bundle without
  // commander or the flows; anything else it hands, untouched, to the command line.
  loadCli('auto', TOKEN_BUNDLE)
    .cli.tokenFromCache(argv, process.env, process.stdout)
    .then((done) => (done ? undefined : loadCli('auto', bundleFor(argv)).cli.main(argv)));
} else {
  loadCli('auto', bundleFor(argv)).cli.main(argv);
}
