#!/usr/bin/env node
// Plays a person at a real browser: BROWSER="node test/helpers/chromium-user.mjs" makes oauthctl run this
// with the authorization URL as the last argument. It opens the URL in headless Chromium (Debian's),
// signs in as alice / wonderland by the field labels, presses Allow, and waits for the listener's page.
// CHROMIUM_USER_SCREENSHOT=file saves what the person saw last.
import { launchChromium, newTab } from './chromium-launch.mjs';

const url = process.argv[process.argv.length - 1];
const browser = await launchChromium();
try {
  const page = await newTab(browser);
  await page.goto(url);
  await page.getByLabel('Account name').fill('alice');
  await page.getByLabel('Password').fill('wonderland');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.pathname === '/callback');
  await page.waitForLoadState('load');
  if (process.env.CHROMIUM_USER_SCREENSHOT) await page.screenshot({ path: process.env.CHROMIUM_USER_SCREENSHOT });
} finally {
  await browser.close();
}
