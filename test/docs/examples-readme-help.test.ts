// The examples of the README, the --help texts and docs/ run as written: this file runs the part
// 'readme-help' (test/docs/examples.ts says which pages are in each part, and how an example runs).
import { runExamples } from './examples.js';

runExamples('readme-help');
