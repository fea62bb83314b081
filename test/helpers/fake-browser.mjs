#!/usr/bin/env node
// Plays the browser in tests: BROWSER="node test/helpers/fake-browser.mjs" makes oauthctl run this with the
// authorization URL as the last argument. It follows redirects to the loopback listener like a browser:
// query redirects are fetched, a fragment is handed over as the listener's page script would, and a
// form_post page's form is submitted.
// FAKE_BROWSER_FAVICON=1 first asks the listener for /favicon.ico (must not end the flow).
// FAKE_BROWSER_LOG=file appends each URL visited.
import { appendFileSync } from 'node:fs';

const start = process.argv[process.argv.length - 1];
const log = (line) => {
  if (process.env.FAKE_BROWSER_LOG) appendFileSync(process.env.FAKE_BROWSER_LOG, `${line}\n`);
};

let url = start;
for (let hop = 0; hop < 10; hop++) {
  log(`GET ${url}`);
  const target = new URL(url);
  if (process.env.FAKE_BROWSER_FAVICON === '1' && hop > 0) {
    const fav = await fetch(new URL('/favicon.ico', target), { redirect: 'manual' });
    log(`favicon ${fav.status}`);
  }
  if (target.hash) {
    const page = new URL(target.href);
    page.hash = '';
    await fetch(page, { redirect: 'manual' });
    const res = await fetch(page, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-oauthctl-fragment': '1' },
      body: target.hash.slice(1),
    });
    log(`fragment ${res.status}`);
    break;
  }
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) {
    url = new URL(location, url).href;
    continue;
  }
  const text = await res.text();
  const form = /<form method="post" action="([^"]+)">(.*)<\/form>/.exec(text);
  if (form) {
    const fields = new URLSearchParams();
    for (const m of form[2].matchAll(/name="([^"]*)" value="([^"]*)"/g)) fields.set(m[1], m[2]);
    const posted = await fetch(form[1], { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
    log(`form_post ${posted.status}`);
  } else {
    log(`done ${res.status}`);
  }
  break;
}
