/**
 * The layers of src/ (docs/ARCHITECTURE.md): imports point down only.
 *   cli -> audit -> agent -> client -> store -> oauth;  mock -> oauth;
 *   output (rendering, IO types) and errors.ts sit below everything but oauth and use nothing above;
 *   http (outbound HTTP: the address policy) uses node built-ins only, and the mock uses it.
 * `npm run lint` runs this; a wrong import fails it with the rule's name.
 */
const layer = (name) => `^src/${name}/`;
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No circle of imports anywhere in src/.', from: { path: '^src/' }, to: { circular: true } },
    { name: 'cli-is-the-top', severity: 'error', comment: 'Nothing below the commands imports src/cli.', from: { path: '^src/', pathNot: layer('cli') }, to: { path: layer('cli') } },
    { name: 'audit-only-from-cli', severity: 'error', comment: 'Only the commands use the audit.', from: { path: '^src/', pathNot: [layer('cli'), layer('audit')] }, to: { path: layer('audit') } },
    {
      name: 'agent-below-audit',
      severity: 'error',
      comment: 'The user agents are used by cli and audit only.',
      from: { path: '^src/', pathNot: [layer('cli'), layer('audit'), layer('agent')] },
      to: { path: layer('agent') },
    },
    {
      name: 'client-below-agent',
      severity: 'error',
      comment: 'The flows and their HTTP use store, oauth, output and errors only.',
      from: { path: layer('client') },
      to: { path: ['^src/(cli|audit|agent|mock)/'] },
    },
    { name: 'store-below-client', severity: 'error', comment: 'The store uses oauth, output and errors only.', from: { path: layer('store') }, to: { path: ['^src/(cli|audit|agent|client|mock)/'] } },
    {
      name: 'mock-is-apart',
      severity: 'error',
      comment: 'The mock uses only itself, src/oauth, src/http, output and errors.ts.',
      from: { path: layer('mock') },
      to: { path: '^src/', pathNot: ['^src/(mock|oauth|output|http)/', '^src/errors\\.ts$'] },
    },
    {
      name: 'http-uses-node-only',
      severity: 'error',
      comment: 'src/http uses only itself and node built-ins.',
      from: { path: layer('http') },
      to: { pathNot: layer('http'), dependencyTypesNot: ['core'] },
    },
    { name: 'oauth-is-pure', severity: 'error', comment: 'src/oauth uses only itself (and node built-ins, jose).', from: { path: layer('oauth') }, to: { path: '^src/', pathNot: layer('oauth') } },
    {
      name: 'output-at-the-bottom',
      severity: 'error',
      comment: 'Rendering and IO types use only oauth and errors.ts.',
      from: { path: '^src/(output/|errors\\.ts$)' },
      to: { path: '^src/', pathNot: ['^src/(output|oauth)/', '^src/errors\\.ts$'] },
    },
    {
      name: 'no-dev-deps-at-run-time',
      severity: 'error',
      comment: 'src/ ships: it may not import a devDependency.',
      from: { path: '^src/', pathNot: '^src/agent/browser-driver\\.ts$' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
