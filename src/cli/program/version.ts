/**
 * oauthctl's version: package.json's, written in at build time by scripts/build-cli.mjs (and by
 * vitest.config.ts for the tests), so that the one place it is set is package.json.
 */
declare const __OAUTHCTL_VERSION__: string;

export const VERSION: string = __OAUTHCTL_VERSION__;
