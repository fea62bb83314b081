import type { Browser, BrowserContextOptions, Page } from 'playwright-core';

export declare const CHROMIUM: string;
export declare const LAUNCH_TIMEOUT: number;
export declare const ACTION_TIMEOUT: number;
export declare const NAVIGATION_TIMEOUT: number;
export declare function launchChromium(): Promise<Browser>;
export declare function newTab(browser: Browser, options?: BrowserContextOptions): Promise<Page>;
