#!/usr/bin/env node
'use strict';
const { loadCli, bundleFor } = require('./load-cli.js');

const argv = process.argv.slice(2);
loadCli('auto', bundleFor(argv)).cli.main(argv);
