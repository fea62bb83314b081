'use strict';
// tough-cookie's `tldts` in the page libraries' bundle (scripts/build-cli.mjs): getDomain, the one
// function tough-cookie uses, with tldts loaded the first time a name needs it. An IP address has no
// registrable domain: tldts answers null for one (its `detectIp`, on by default) before it reads the
// public suffix list, and so does this, without loading the list. test/cli/program/bundle.test.ts checks that the
// two answer alike.
const { isIP } = require('node:net');

let tldts;

function getDomain(host, options) {
  if (isIP(host) !== 0) return null;
  tldts ??= require('tldts');
  return tldts.getDomain(host, options);
}

module.exports = { getDomain };
