#!/usr/bin/env node
// Runs every *.json scenario of the given folders through the oracle and writes
// <name>.expected.json next to each; a scenario's "gltf" path is resolved
// against its own folder. (tests/conformance/regenerate.sh drives it.)
//
//   node tools/run_all.mjs [--check] DIR...   --check: regenerate in memory and fail
//                                             if any expected file differs; also run the
//                                             cubicspline scenarios with the mirrored
//                                             GLTF interpolant and require identical frames

import { readFileSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative, resolve } from 'node:path';
import { runScenario, formatResult, threeVersion, getCubicSplineFactory } from '../oracle.mjs';

const scenariosDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');
const check = process.argv.includes('--check');
const dirArgs = process.argv.slice(2).filter((a) => !a.startsWith('--')).map((d) => resolve(d));
const dirs = dirArgs.length ? dirArgs : [scenariosDir, join(scenariosDir, 'gltf')].filter((d) => existsSync(d));
const files = [];
for (const d of dirs) {
	const names = readdirSync(d).filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json')).sort();
	for (const f of names) files.push(join(d, f));
}
const label = (f) => relative(dirArgs.length ? process.cwd() : scenariosDir, f);

const cubic = await getCubicSplineFactory();
const prev = process.env.ORACLE_CUBIC;
process.env.ORACLE_CUBIC = 'mirror';
const mirror = await getCubicSplineFactory();
if (prev === undefined) delete process.env.ORACLE_CUBIC; else process.env.ORACLE_CUBIC = prev;
const meta = { threeVersion: threeVersion(), cubicSource: cubic.source };

let bad = 0;
for (const file of files) {
	const f = label(file);
	const sc = JSON.parse(readFileSync(file, 'utf8'));
	const res = await runScenario(sc, { cubic, baseDir: dirname(file) });
	if (res.pending) {
		console.error(`${f}: ${res.pending} script ops never ran`);
		bad++;
	}
	const out = formatResult(sc, res, meta);
	const outFile = file.replace(/\.json$/, '.expected.json');
	let status = 'written';
	if (check) {
		let old = null;
		try { old = readFileSync(outFile, 'utf8'); } catch { /* missing */ }
		status = old === out ? 'same' : 'DIFFERS';
		if (old !== out) bad++;
	} else writeFileSync(outFile, out);
	if (res.hasCubic || JSON.stringify(sc).includes('"cubicspline"')) {
		const m = await runScenario(sc, { cubic: mirror, baseDir: dirname(file) });
		const same = JSON.stringify(m.frames) === JSON.stringify(res.frames);
		status += same ? ', mirror==loader' : ', MIRROR DIFFERS';
		if (!same) bad++;
	}
	console.log(`${f}: ${res.frames.length} frames, ${status}`);
}
console.log(`${files.length - bad} passed, ${bad} failed`);
process.exit(bad ? 1 : 0);
