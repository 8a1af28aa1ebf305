import { describe, expect, it } from 'vitest';
import { PROTECTED_PATH_DEFAULTS } from '../../lambdas/changes/default-protected-paths.ts';
import { compilePattern } from '../../lambdas/changes/paths.ts';
import { SOURCES } from '../../lambdas/changes/protected-path-sources.ts';
import {
  findProtectedChanges,
  ProtectedPathsSettings,
  protectedPaths,
} from '../../lambdas/changes/protected-paths.ts';

/**
 * The default protected paths, entry by entry: each pattern has real paths it must match (a
 * new entry without one fails here), each says what runs and cites a documented source, and
 * ordinary source files stay unprotected.
 */

/** For each default pattern, paths a repository really has that it must match. */
const MUST_MATCH: Record<string, readonly string[]> = {
  '/.github/**': ['.github/workflows/ci.yml', '.github/actions/setup/action.yml'],
  '.gitlab-ci.yml': ['.gitlab-ci.yml'],
  '/.gitlab/**': ['.gitlab/ci/test.yml'],
  '/.circleci/**': ['.circleci/config.yml'],
  Jenkinsfile: ['Jenkinsfile', 'services/api/Jenkinsfile'],
  'Jenkinsfile.*': ['Jenkinsfile.release'],
  'buildspec.yml': ['buildspec.yml'],
  'buildspec.yaml': ['buildspec.yaml'],
  'buildspec-*.yml': ['buildspec-deploy.yml'],
  'azure-pipelines.yml': ['azure-pipelines.yml'],
  'azure-pipelines.yaml': ['azure-pipelines.yaml'],
  '/.azure-pipelines/**': ['.azure-pipelines/templates/build.yml'],
  '.travis.yml': ['.travis.yml'],
  'bitbucket-pipelines.yml': ['bitbucket-pipelines.yml'],
  '/.buildkite/**': ['.buildkite/pipeline.yml', '.buildkite/hooks/pre-command'],
  '.drone.yml': ['.drone.yml'],
  'appveyor.yml': ['appveyor.yml'],
  'cloudbuild.yaml': ['cloudbuild.yaml'],
  'cloudbuild.yml': ['cloudbuild.yml'],
  '/.gitea/**': ['.gitea/workflows/ci.yaml'],
  '/.forgejo/**': ['.forgejo/workflows/ci.yaml'],
  '{.woodpecker.yml,.woodpecker.yaml,/.woodpecker/**}': ['.woodpecker.yml', '.woodpecker/test.yaml'],
  '/.devcontainer/**': ['.devcontainer/devcontainer.json', '.devcontainer/post-create.sh'],
  '.devcontainer.json': ['.devcontainer.json'],
  '/.vscode/**': ['.vscode/tasks.json'],
  '.pre-commit-config.yaml': ['.pre-commit-config.yaml'],
  '/.husky/**': ['.husky/pre-commit'],
  '{.,}lefthook{,-local}.{yml,yaml,toml,json,jsonc}': [
    'lefthook.yml',
    '.lefthook.yaml',
    'lefthook-local.toml',
  ],
  '/{.lefthook,.lefthook-local}/**': ['.lefthook/pre-commit/lint.sh', '.lefthook-local/pre-push/x.sh'],
  '/.githooks/**': ['.githooks/pre-commit'],
  '{.lintstagedrc*,lint-staged.config.*}': ['.lintstagedrc.json', '.lintstagedrc', 'lint-staged.config.mjs'],
  '{.,}simple-git-hooks.{cjs,js,mjs,json}': ['.simple-git-hooks.cjs', 'simple-git-hooks.json'],
  '.gitattributes': ['.gitattributes', 'assets/.gitattributes'],
  '.gitmodules': ['.gitmodules'],
  '.npmrc': ['.npmrc', 'packages/web/.npmrc'],
  '.pnpmfile.{cjs,mjs}': ['.pnpmfile.cjs', '.pnpmfile.mjs'],
  'pnpm-workspace.yaml': ['pnpm-workspace.yaml'],
  '.yarnrc': ['.yarnrc'],
  '.yarnrc.yml': ['.yarnrc.yml'],
  '**/.yarn/**': [
    '.yarn/releases/yarn-4.5.0.cjs',
    '.yarn/plugins/@yarnpkg/plugin-x.cjs',
    '.yarn/patches/left-pad-npm-1.3.0.patch',
    'apps/web/.yarn/releases/yarn-3.6.0.cjs',
  ],
  'bunfig.toml': ['bunfig.toml'],
  'package.json': ['package.json', 'packages/api/package.json'],
  'package-lock.json': ['package-lock.json'],
  'npm-shrinkwrap.json': ['npm-shrinkwrap.json'],
  'yarn.lock': ['yarn.lock'],
  'pnpm-lock.yaml': ['pnpm-lock.yaml'],
  'bun.lock': ['bun.lock'],
  'bun.lockb': ['bun.lockb'],
  'deno.lock': ['deno.lock'],
  'requirements*.txt': ['requirements.txt', 'requirements-dev.txt'],
  'constraints*.txt': ['constraints.txt'],
  Pipfile: ['Pipfile'],
  'Pipfile.lock': ['Pipfile.lock'],
  'pyproject.toml': ['pyproject.toml'],
  'poetry.lock': ['poetry.lock'],
  'uv.lock': ['uv.lock'],
  'pdm.lock': ['pdm.lock'],
  'setup.py': ['setup.py'],
  'setup.cfg': ['setup.cfg'],
  'go.mod': ['go.mod'],
  'go.sum': ['go.sum'],
  'go.work': ['go.work'],
  'go.work.sum': ['go.work.sum'],
  'Cargo.toml': ['Cargo.toml', 'crates/core/Cargo.toml'],
  'Cargo.lock': ['Cargo.lock'],
  Gemfile: ['Gemfile'],
  'Gemfile.lock': ['Gemfile.lock'],
  '/.bundle/config': ['.bundle/config'],
  '*.gemspec': ['webshop.gemspec'],
  'composer.json': ['composer.json'],
  'composer.lock': ['composer.lock'],
  'pom.xml': ['pom.xml', 'module-a/pom.xml'],
  'build.gradle': ['build.gradle'],
  'build.gradle.kts': ['app/build.gradle.kts'],
  'settings.gradle': ['settings.gradle'],
  'settings.gradle.kts': ['settings.gradle.kts'],
  'gradle.properties': ['gradle.properties'],
  '/gradle/wrapper/**': ['gradle/wrapper/gradle-wrapper.properties', 'gradle/wrapper/gradle-wrapper.jar'],
  '/gradle/*.versions.toml': ['gradle/libs.versions.toml'],
  '*.csproj': ['src/Shop/Shop.csproj'],
  '*.{fsproj,vbproj,proj}': ['src/Lib/Lib.fsproj', 'build.proj'],
  'packages.lock.json': ['src/Shop/packages.lock.json'],
  'Directory.Packages.props': ['Directory.Packages.props'],
  'NuGet.config': ['NuGet.config', 'nuget.config'],
  'mix.exs': ['mix.exs'],
  'mix.lock': ['mix.lock'],
  'Package.swift': ['Package.swift'],
  'Package.resolved': ['Package.resolved'],
  Podfile: ['ios/Podfile'],
  'Podfile.lock': ['ios/Podfile.lock'],
  'pubspec.yaml': ['pubspec.yaml'],
  'pubspec.lock': ['pubspec.lock'],
  gradlew: ['gradlew', 'android/gradlew'],
  'gradlew.bat': ['gradlew.bat'],
  mvnw: ['mvnw'],
  'mvnw.cmd': ['mvnw.cmd'],
  '**/.mvn/**': ['.mvn/wrapper/maven-wrapper.properties', '.mvn/extensions.xml', '.mvn/jvm.config'],
  '.bazelversion': ['.bazelversion'],
  '/tools/bazel': ['tools/bazel'],
  Makefile: ['Makefile'],
  GNUmakefile: ['GNUmakefile'],
  '*.mk': ['build/rules.mk'],
  Dockerfile: ['Dockerfile'],
  'Dockerfile.*': ['Dockerfile.dev'],
  '*.dockerfile': ['api.dockerfile'],
  Containerfile: ['Containerfile'],
  'docker-compose*.yml': ['docker-compose.yml', 'docker-compose.test.yml'],
  'docker-compose*.yaml': ['docker-compose.yaml'],
  'compose.yml': ['compose.yml'],
  'compose.yaml': ['compose.yaml'],
  Rakefile: ['Rakefile'],
  '*.rake': ['lib/tasks/db.rake'],
  'Taskfile.yml': ['Taskfile.yml'],
  justfile: ['justfile'],
  'CMakeLists.txt': ['CMakeLists.txt'],
  '*.cmake': ['cmake/Toolchain.cmake'],
  'CMake{,User}Presets.json': ['CMakePresets.json', 'CMakeUserPresets.json'],
  '{meson.build,meson.options,meson_options.txt}': ['meson.build', 'meson_options.txt', 'meson.options'],
  '{configure,configure.ac}': ['configure', 'configure.ac'],
  BUILD: ['BUILD'],
  'BUILD.bazel': ['src/BUILD.bazel'],
  '*.bzl': ['tools/defs.bzl'],
  WORKSPACE: ['WORKSPACE'],
  'WORKSPACE.bazel': ['WORKSPACE.bazel'],
  'MODULE.bazel': ['MODULE.bazel'],
  '.bazelrc': ['.bazelrc'],
  '*.gradle{,.kts}': ['gradle/publishing.gradle', 'gradle/jacoco.gradle.kts'],
  '/{buildSrc,build-logic}/**': [
    'buildSrc/src/main/kotlin/conventions.gradle.kts',
    'build-logic/src/main/kotlin/Plugin.kt',
  ],
  '*.sbt': ['build.sbt', 'project/plugins.sbt'],
  '/project/{*.scala,build.properties}': ['project/Dependencies.scala', 'project/build.properties'],
  '*.props': ['Directory.Build.props'],
  '*.targets': ['Directory.Build.targets', 'build/Custom.targets'],
  'Directory.Build.rsp': ['Directory.Build.rsp'],
  '/.config/dotnet-tools.json': ['.config/dotnet-tools.json'],
  '**/.cargo/**': ['.cargo/config.toml', '.cargo/config', 'crates/cli/.cargo/config.toml'],
  'build.rs': ['build.rs', 'crates/sys/build.rs'],
  'hatch{.toml,_build.py}': ['hatch.toml', 'hatch_build.py'],
  'deno.json{,c}': ['deno.json', 'deno.jsonc'],
  '{webpack,rspack}.config.*': ['webpack.config.js', 'rspack.config.ts'],
  'rollup.config.*': ['rollup.config.mjs'],
  '{babel.config.*,.babelrc,.babelrc.*}': ['babel.config.js', '.babelrc', '.babelrc.json'],
  '{postcss.config.*,.postcssrc,.postcssrc.*}': ['postcss.config.cjs', '.postcssrc'],
  '{turbo.json,turbo.jsonc}': ['turbo.json'],
  'nx.json': ['nx.json'],
  'tsconfig*.json': ['tsconfig.json', 'tsconfig.build.json'],
  'vitest.config.*': ['vitest.config.ts'],
  'vitest.workspace.*': ['vitest.workspace.ts'],
  'vite.config.*': ['vite.config.mts'],
  'jest.config.*': ['jest.config.js'],
  'playwright.config.*': ['playwright.config.ts'],
  'cypress.config.*': ['cypress.config.ts'],
  '{.mocharc,.mocharc.*}': ['.mocharc.yml', '.mocharc'],
  '{.nycrc,.nycrc.*,.c8rc,.c8rc.*}': ['.nycrc', '.nycrc.json', '.c8rc.json'],
  'biome.json': ['biome.json'],
  'biome.jsonc': ['biome.jsonc'],
  'eslint.config.*': ['eslint.config.js'],
  '.eslintrc*': ['.eslintrc.json', '.eslintrc'],
  '{.prettierrc,.prettierrc.*,prettier.config.*}': ['.prettierrc', '.prettierrc.yaml', 'prettier.config.js'],
  '{.stylelintrc,.stylelintrc.*,stylelint.config.*}': ['.stylelintrc.json', 'stylelint.config.mjs'],
  'pytest.ini': ['pytest.ini'],
  '{.pytest.ini,pytest.toml,.pytest.toml}': ['.pytest.ini', 'pytest.toml'],
  'conftest.py': ['conftest.py', 'tests/unit/conftest.py'],
  'tox.ini': ['tox.ini'],
  'noxfile.py': ['noxfile.py'],
  '.coveragerc': ['.coveragerc'],
  '{ruff.toml,.ruff.toml}': ['ruff.toml', '.ruff.toml'],
  '.flake8': ['.flake8'],
  '{.pylintrc,pylintrc}': ['.pylintrc', 'pylintrc'],
  '{mypy.ini,.mypy.ini}': ['mypy.ini'],
  '.rspec': ['.rspec'],
  '.rubocop*.yml': ['.rubocop.yml', '.rubocop_todo.yml'],
  'phpunit.xml{,.dist}': ['phpunit.xml', 'phpunit.xml.dist'],
  'phpstan.neon{,.dist}': ['phpstan.neon', 'phpstan.neon.dist'],
  '.php-cs-fixer{,.dist}.php': ['.php-cs-fixer.php', '.php-cs-fixer.dist.php'],
  '.golangci.{yml,yaml,toml,json}': ['.golangci.yml', '.golangci.toml'],
  '{clippy.toml,.clippy.toml}': ['clippy.toml'],
  '{rustfmt.toml,.rustfmt.toml}': ['rustfmt.toml', '.rustfmt.toml'],
  '.editorconfig': ['.editorconfig'],
  '.globalconfig': ['.globalconfig'],
  '.formatter.exs': ['.formatter.exs'],
  'analysis_options.yaml': ['analysis_options.yaml'],
  '{codecov.yml,.codecov.yml}': ['codecov.yml', '.codecov.yml'],
  '.eslintignore': ['.eslintignore'],
  '.prettierignore': ['.prettierignore'],
  '.gitignore': ['.gitignore', 'src/generated/.gitignore'],
  '.stylelintignore': ['.stylelintignore'],
  '.semgrepignore': ['.semgrepignore'],
  '.gitleaksignore': ['.gitleaksignore'],
  '.trivyignore{,.yaml}': ['.trivyignore', '.trivyignore.yaml'],
  '.envrc': ['.envrc', 'services/api/.envrc'],
  '.env': ['.env'],
  '.env.*': ['.env.production', '.env.local'],
  '.tool-versions': ['.tool-versions'],
  '{.,}mise{,.local}.toml': ['mise.toml', '.mise.toml', 'mise.local.toml'],
  '{/.mise/**,/.config/mise/**,/.config/mise.toml}': [
    '.mise/config.toml',
    '.config/mise/config.toml',
    '.config/mise.toml',
  ],
  '.nvmrc': ['.nvmrc'],
  '.node-version': ['.node-version'],
  '.python-version': ['.python-version'],
  '.ruby-version': ['.ruby-version'],
  '.sdkmanrc': ['.sdkmanrc'],
  'rust-toolchain{,.toml}': ['rust-toolchain', 'rust-toolchain.toml'],
  'global.json': ['global.json'],
  '{flake.nix,flake.lock,shell.nix}': ['flake.nix', 'flake.lock', 'shell.nix'],
  'devbox.json': ['devbox.json'],
  'cdk.json': ['cdk.json', 'infra/cdk.json'],
  'cdk.context.json': ['cdk.context.json'],
  'netlify.toml': ['netlify.toml'],
  'vercel.json': ['vercel.json'],
  'serverless.{yml,yaml,ts,js,json}': ['serverless.yml', 'serverless.ts'],
  'samconfig.toml': ['samconfig.toml'],
  '/template.{yaml,yml}': ['template.yaml', 'template.yml'],
  'fly.toml': ['fly.toml'],
  '/app.yaml': ['app.yaml'],
  Procfile: ['Procfile'],
  '/app.json': ['app.json'],
  'wrangler.{toml,json,jsonc}': ['wrangler.toml', 'wrangler.jsonc'],
  'render.yaml': ['render.yaml'],
  'firebase.json': ['firebase.json'],
  'amplify.yml': ['amplify.yml'],
  'Pulumi{,.*}.yaml': ['Pulumi.yaml', 'Pulumi.prod.yaml'],
  '*.tf': ['infra/main.tf'],
  '.terraform.lock.hcl': ['.terraform.lock.hcl'],
  '/{.platform,.ebextensions}/**': ['.platform/hooks/predeploy/01.sh', '.ebextensions/01-commands.config'],
  CODEOWNERS: ['CODEOWNERS', '.github/CODEOWNERS', 'docs/CODEOWNERS'],
  'AGENTS.md': ['AGENTS.md'],
  'CLAUDE.md': ['CLAUDE.md'],
  '/.claude/**': ['.claude/settings.json'],
  '/.cursor/**': ['.cursor/rules/style.mdc'],
  '.cursorrules': ['.cursorrules'],
  '/.slack-agents/**': ['.slack-agents/config.json'],
};

const entries = Object.entries(PROTECTED_PATH_DEFAULTS).flatMap(([group, list]) =>
  list.map((entry) => ({ group, ...entry })),
);
const defaults = protectedPaths(ProtectedPathsSettings.parse({}));
const isProtected = (path: string) =>
  findProtectedChanges([{ path, status: 'added', additions: 1, deletions: 0 }], defaults).length > 0;

describe('the default protected paths, entry by entry', () => {
  it('has paths it must match for every entry, and no example for an entry that is gone', () => {
    expect(Object.keys(MUST_MATCH).sort()).toEqual(entries.map((e) => e.pattern).sort());
  });

  it.each(entries)('$pattern ($group) matches its examples', ({ pattern }) => {
    const compiled = compilePattern(pattern);
    const examples = MUST_MATCH[pattern] ?? [];
    expect(examples.length).toBeGreaterThan(0);
    for (const path of examples) expect(compiled.matches(path), path).toBe(true);
  });

  it('says for every entry what runs and cites a documented source, each source used', () => {
    for (const entry of entries) {
      expect(entry.runs.trim(), entry.pattern).not.toBe('');
      expect(SOURCES[entry.source], entry.pattern).toMatch(/^(https:\/\/\S+|docs\/\S+\.md)/);
    }
    const used = new Set(entries.map((e) => e.source));
    expect(Object.keys(SOURCES).filter((key) => !used.has(key as never))).toEqual([]);
  });

  it('lists each pattern once', () => {
    const patterns = entries.map((e) => e.pattern);
    expect(patterns.filter((p, i) => patterns.indexOf(p) !== i)).toEqual([]);
  });
});

describe('files that run code or loosen checks, added by a branch', () => {
  // Each of these was added by a pull request that a refusing workflow opened anyway.
  it.each([
    '.pnpmfile.cjs',
    '.yarn/releases/yarn-4.5.0.cjs',
    'gradlew',
    '.mvn/wrapper/maven-wrapper.properties',
    'Directory.Build.targets',
    '.cargo/config.toml',
    'conftest.py',
    'lefthook.yml',
    '.envrc',
    'cdk.json',
    'netlify.toml',
    '.tool-versions',
    '.eslintignore',
    'deno.json',
  ])('protects %s', (path) => {
    expect(isProtected(path)).toBe(true);
  });

  it('leaves ordinary source, tests and docs unprotected', () => {
    for (const path of [
      'src/checkout.ts',
      'src/config.ts',
      'test/checkout.test.ts',
      'tests/test_cart.py',
      'README.md',
      'docs/setup.md',
      'src/build/index.ts',
      'lib/gradle_helper.rb',
      'src/env.ts',
      'app/templates/page.html',
    ])
      expect(isProtected(path), path).toBe(false);
  });
});
