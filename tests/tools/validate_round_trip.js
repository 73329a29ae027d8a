// Usage: node validate_round_trip.js MANIFEST
// Each manifest line is "EXPORTED<TAB>SOURCE" (SOURCE "-": made by the test, no source).
// An exported file must have no validator errors, and no warnings that its source does not
// have too (a model whose skinned mesh is not a root node keeps that warning: the node tree
// is kept as it was). Prints one line per file; exits 1 on any failure.
const fs = require('fs'), path = require('path');
const validator = require('gltf-validator');
async function validate(file) {
  const full = path.resolve(file);
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(full)), {
    uri: path.basename(full), maxIssues: 0, writeTimestamp: false,
    externalResourceFunction: (uri) => new Promise((resolve, reject) =>
      fs.readFile(path.resolve(path.dirname(full), decodeURIComponent(uri)), (err, data) =>
        err ? reject(err.toString()) : resolve(new Uint8Array(data)))),
  });
  const m = report.issues.messages;
  return { errors: report.issues.numErrors,
           warnings: new Set(m.filter(x => x.severity === 1).map(x => x.code)) };
}
(async () => {
  const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
  const sources = new Map();
  let bad = 0;
  for (const line of lines) {
    const [out, src] = line.split('\t');
    const r = await validate(out);
    let allowed = new Set();
    if (src !== '-') {
      if (!sources.has(src)) sources.set(src, await validate(src));
      allowed = sources.get(src).warnings;
    }
    const extra = [...r.warnings].filter(c => !allowed.has(c));
    const ok = r.errors === 0 && extra.length === 0;
    console.log(`${path.basename(out)}: errors=${r.errors} warnings=[${[...r.warnings]}]` +
                (extra.length ? ` NEW=[${extra}]` : '') + (ok ? '' : ' FAIL'));
    if (!ok) bad++;
  }
  console.log(`validator ${validator.version()}: ${lines.length} files, ${bad} failing`);
  process.exit(bad ? 1 : 0);
})();
