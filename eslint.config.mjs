// Lint config. Its main job is @nx/enforce-module-boundaries: the dependency
// direction of docs/design.md, "Layers" (core ← shared ← domain ← pipeline ←
// shell) is enforced here through project tags, not only described.
import nx from '@nx/eslint-plugin';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import tseslint from 'typescript-eslint';

export const depConstraints = [
  { sourceTag: 'layer:core', onlyDependOnLibsWithTags: ['layer:core'] },
  // notebook and runtime are shared services: core, and runtime may use notebook.
  { sourceTag: 'scope:notebook', onlyDependOnLibsWithTags: ['layer:core'] },
  { sourceTag: 'scope:runtime', onlyDependOnLibsWithTags: ['layer:core', 'scope:notebook'] },
  // archive (safe zip/tar reading), suggest (crash knowledge: library cause and
  // label suggestions) and queue (BullMQ transport beside runtime) are shared too.
  { sourceTag: 'scope:archive', onlyDependOnLibsWithTags: ['layer:core'] },
  // charts renders Vega-Lite specifications to SVG, for the statistics and the tool comparisons.
  { sourceTag: 'scope:charts', onlyDependOnLibsWithTags: ['layer:core'] },
  { sourceTag: 'scope:suggest', onlyDependOnLibsWithTags: ['layer:core', 'scope:notebook'] },
  { sourceTag: 'scope:queue', onlyDependOnLibsWithTags: ['layer:core', 'scope:notebook', 'scope:runtime'] },
  // checks (checks.py, its harness in the kernel, mutation testing) runs notebooks through the runtime; verify and
  // score call it.
  { sourceTag: 'scope:checks', onlyDependOnLibsWithTags: ['layer:core', 'scope:notebook', 'scope:runtime'] },
  // reproduce (triage, data derivation, replay order) reads notebooks and finds the Python it analyses them with.
  { sourceTag: 'scope:reproduce', onlyDependOnLibsWithTags: ['layer:core', 'scope:notebook', 'scope:runtime'] },
  // A stage never imports another stage: flows across stages live in pipeline.
  { sourceTag: 'layer:domain', onlyDependOnLibsWithTags: ['layer:core', 'layer:shared'] },
  // The flows (pipeline: the build; add; publish: the releases) never import each other: what two of them share
  // goes into a domain package (benchmark, build-lock).
  { sourceTag: 'layer:pipeline', onlyDependOnLibsWithTags: ['layer:core', 'layer:shared', 'layer:domain'] },
  {
    sourceTag: 'layer:shell',
    onlyDependOnLibsWithTags: ['layer:core', 'layer:shared', 'layer:domain', 'layer:pipeline'],
  },
];

const boundaries = {
  enforceBuildableLibDependency: false,
  allowCircularSelfDependency: false,
  banTransitiveDependencies: false,
  depConstraints,
};

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '.nx/**', 'curated/**', 'raw/**'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports (docs/design.md, "Style").' },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // noUncheckedIndexedAccess makes `!` the honest way to say "checked above".
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  // No import cycle inside a package, type-only imports included: a cycle means two modules are one, or a third
  // module is missing (CONTRIBUTING.md, "Layout and rules").
  {
    files: ['packages/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // A lifecycle or a stage over ~120 lines wants splitting into small objects or steps (docs/design.md, "Style").
      'max-lines-per-function': ['warn', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  // A package's tests may use the test helpers of a package it builds on (its fixture writers, its stand-ins), by
  // their path: helpers are in no package's exports. test/test-helpers-placement.test.ts holds these imports to the
  // dependency direction above; library code never reaches a helper.
  {
    files: ['packages/*/src/**/*.test.ts', 'packages/*/test-helpers/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': ['error', { ...boundaries, allow: ['^(\\.\\./)+[a-z0-9-]+/test-helpers/'] }],
    },
  },
  // Tools' own configuration files must export a default: vitest reads nothing else.
  { files: ['*.config.ts'], rules: { 'no-restricted-syntax': 'off' } },
];
