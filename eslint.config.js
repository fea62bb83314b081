// ESLint with typescript-eslint's recommended rules, tuned where they fight the code's honest style.
// The layering lives in .dependency-cruiser.cjs; the formatting in .prettierrc.json (both run by `npm run lint`).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.bench/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter or binding kept for its position or to drop it from a rest object.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Control characters are what the escaping code looks for (terminal safety).
      'no-control-regex': 'off',
    },
  },
  {
    // bin/ is CommonJS (bin/package.json): the command line loads one bundled file through require().
    files: ['**/*.cjs', 'bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The command line is bundled as CommonJS (docs/ARCHITECTURE.md, "How the command line starts").
    files: ['src/**'],
    rules: { 'no-restricted-syntax': ['error', { selector: "MetaProperty[meta.name='import']", message: 'src/ is bundled as CommonJS: no import.meta' }] },
  },
  {
    // A Node 20 deadlock: src/oauth/p256-key.ts.
    files: ['src/**', 'test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'node:crypto',
              importNames: ['generateKeyPairSync'],
              message:
                'Node 20 can deadlock exporting such a key as a JWK: use generateP256KeyPair (src/oauth/p256-key.ts), the asynchronous generateKeyPair, or keyPairSync (test/helpers/keys.ts) in tests',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      // Tests build hostile and partial values on purpose.
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
