// The layering of docs/architecture.md, checked by `npm run lint:deps` (part of `npm test`).
// A .cjs file because package.json says "type": "module"; it is the form dependency-cruiser's
// own `--init` writes for such packages.

// Our own code: anything that resolved to a file outside node_modules. Node built-ins
// (dependency type "core") and npm packages are never "ours"; imports that did not resolve
// are left to not-to-unresolvable so one bad import is not reported twice.
function oursOutside(allowedFolders) {
  return {
    pathNot: [`^(${allowedFolders.join('|')})/`, '(^|/)node_modules/'],
    dependencyTypesNot: ['core'],
    couldNotResolve: false,
  };
}

// Folders that ship in the CLI; scripts/ and test/ are tooling around them.
const PRODUCTION = ['core', 'strategies', 'graders', 'reports', 'harness', 'bin'];

function onlyCoreAndSelf(folder) {
  return {
    name: `${folder}-imports-only-core`,
    comment: `${folder} may import only core/ and ${folder}/`,
    severity: 'error',
    from: { path: `^${folder}/` },
    to: oursOutside(['core', folder]),
  };
}

module.exports = {
  forbidden: [
    {
      // Type-only edges count too: a type cycle still means two modules can only be
      // understood (and moved) together.
      name: 'no-cycles',
      comment: 'import cycles are not allowed anywhere, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      comment: 'core may import only core/ (it is the foundation)',
      severity: 'error',
      from: { path: '^core/' },
      to: oursOutside(['core']),
    },
    onlyCoreAndSelf('strategies'),
    onlyCoreAndSelf('graders'),
    onlyCoreAndSelf('reports'),
    {
      name: 'production-not-to-scripts-or-test',
      comment: `${PRODUCTION.join(', ')} may not import scripts/ or test/`,
      severity: 'error',
      from: { path: `^(${PRODUCTION.join('|')})/` },
      to: { path: '^(scripts|test)/' },
    },
    {
      name: 'scripts-not-to-test',
      comment: 'scripts may import anything but test/',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^test/' },
    },
    {
      // Unresolved npm names are npm's business; a relative path that does not resolve is
      // a file that was moved or deleted without updating its importers.
      name: 'not-to-unresolvable',
      comment: 'a relative import must point at a file that exists',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, path: '^\\.{1,2}/' },
    },
  ],
  options: {
    // Parse the TypeScript sources before compilation, so `import type` edges exist.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs'],
    // Packages are recorded as npm dependencies but never scanned; dist/ is build output.
    doNotFollow: { path: '(^|/)node_modules/' },
    exclude: { path: '(^|/)dist/' },
    // Only what the rules need: no orphan, dependents or reachability analysis.
    skipAnalysisNotInRules: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
