// oroya in a real browser: headless Chromium (Debian's chromium) driven through puppeteer-core.
//   1. the viewer loads bundled models (CesiumMan, MorphStressTest, humanoid67) with no console
//      error and plays every clip;
//   2. the pose of a clip at a fixed time, read from the page (every joint's local TRS, morph
//      weights, every skin's bone matrices), equals `oroya sample` on the same file within 1e-5;
//   3. a rendered frame (WebGL2 on SwiftShader) shows the model and matches a golden image
//      within a tolerance;
//   4. bad files (given to the loader and dropped on the view) show the library's message on
//      the page, with no uncaught exception;
//   5. the race page at N = 100 prints web_race_oroya_us, web_race_three_us, web_race_speedup
//      (and the pose-kernel figures), and oroya's bone matrices agree with three.js's.
// Usage: node test_web.mjs BUILD_DIR SOURCE_DIR   (OROYA_UPDATE_GOLDEN=1 rewrites the golden)
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const [build, source] = process.argv.slice(2).map((p) => path.resolve(p));
const web = path.join(source, 'web');
const golden = path.join(source, 'tests/web/golden/viewer_cesiumman.png');
const outDir = path.join(build, 'test_web');
fs.mkdirSync(outDir, { recursive: true });
let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) { passed++; console.log(`ok   ${what}`); } else { failed++; console.log(`FAIL ${what}`); }
  return ok;
}

// ---- a local server: python3 -m http.server on a free loopback port -------------------------
function serve() {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1'],
      { cwd: web, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const onData = (d) => {
      text += d;
      const m = text.match(/port (\d+)/);
      if (m) resolve({ proc: p, port: Number(m[1]) });
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', () => {});
    p.on('exit', (code) => reject(new Error(`http.server exited (${code}): ${text}`)));
    setTimeout(() => reject(new Error('http.server did not start')), 15000);
  });
}

const server = await serve();
const base = `http://127.0.0.1:${server.port}`;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'oroya-chromium-'));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  userDataDir: profile,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const timer = setTimeout(() => { console.log('FAIL timed out after 170 s'); process.exit(1); }, 170000);

async function openPage(url, ready) {
  const page = await browser.newPage();
  await page.setViewport({ width: 900, height: 600 });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.goto(base + url, { waitUntil: 'load' });
  await page.waitForFunction(ready, { timeout: 60000 });
  return { page, problems };
}

function sample(file, clip, time) {
  const out = execFileSync(path.join(build, 'oroya'), ['sample', file, '--clip', clip, '--time', String(time)],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  return JSON.parse(out).frames[0];
}

// Largest |page - oroya sample| over every node's TRS and weights and every skin's bones.
function compare(pose, ref) {
  let worst = 0, where = '', missing = [];
  const diff = (a, b, name) => {
    if (!a || !b || a.length !== b.length) { missing.push(name); return; }
    for (let i = 0; i < a.length; i++) {
      const d = Math.abs(a[i] - b[i]);
      if (!(d <= worst)) { worst = d; where = `${name}[${i}] page ${a[i]} sample ${b[i]}`; }
    }
  };
  for (const [name, n] of Object.entries(ref.nodes)) {
    const p = pose.nodes[name];
    for (const k of ['translation', 'rotation', 'scale']) diff(p && p[k], n[k], `${name}.${k}`);
    if (n.weights) diff(p && p.weights, n.weights, `${name}.weights`);
  }
  for (const [name, s] of Object.entries(ref.skins)) diff(pose.skins[name], s, name);
  const extra = Object.keys(pose.nodes).filter((k) => !(k in ref.nodes));
  return { worst, where, missing, extra, nodes: Object.keys(ref.nodes).length, skins: Object.keys(ref.skins).length };
}

try {
  // ---- 1 + 2: viewer, every clip of each bundled model, pose against `oroya sample` ----------
  const models = [
    { file: 'assets/CesiumMan.glb', times: [0.75] },
    { file: 'assets/MorphStressTest.glb', times: [0.6] },
    { file: 'assets/humanoid67.glb', times: [0.3] },
  ];
  const { page, problems } = await openPage(`/?file=${models[0].file}`, 'window.oroyaViewer && window.oroyaViewer.ready');
  const gpu = await page.evaluate(() => {
    const gl = document.getElementById('view').getContext('webgl2');
    const ext = gl && gl.getExtension('WEBGL_debug_renderer_info');
    return gl ? gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER) : '';
  });
  check(gpu !== '', `the viewer has a WebGL2 context (${gpu})`);
  for (const m of models) {
    const res = await page.evaluate((f) => window.oroyaViewer.loadUrl(f), m.file);
    check(res.ok, `viewer loads ${m.file}${res.ok ? '' : ': ' + res.error}`);
    if (!res.ok) continue;
    const clips = await page.evaluate(() => window.oroyaViewer.clips());
    check(clips.length > 0, `${m.file}: ${clips.length} clip(s) listed`);
    for (let i = 0; i < clips.length; i++) {
      for (const t of m.times) {
        const clipName = clips[i];
        const at = await page.evaluate((k, tt) => window.oroyaViewer.poseAt(k, tt), i, t);
        const pose = await page.evaluate(() => window.oroyaViewer.pose());
        const ref = sample(path.join(web, m.file), clipName, at);
        const c = compare(pose, ref);
        check(c.missing.length === 0 && c.extra.length === 0 && c.worst <= 1e-5,
          `${m.file} clip '${clipName}' at ${at}: ${c.nodes} nodes, ${c.skins} skin(s), ` +
          `max |page - oroya sample| ${c.worst.toExponential(2)}` +
          (c.missing.length ? `, missing ${c.missing.slice(0, 3)}` : '') +
          (c.extra.length ? `, extra ${c.extra.slice(0, 3)}` : '') + (c.worst > 1e-5 ? ` at ${c.where}` : ''));
      }
      // Then let it play on its own for a few frames.
      await page.evaluate((k) => { const v = window.oroyaViewer; v.poseAt(k, 0); v.pause(false); }, i);
      const f0 = await page.evaluate(() => window.oroyaViewer.frames());
      await page.waitForFunction((f) => window.oroyaViewer.frames() > f + 5, { timeout: 20000 }, f0);
      const err = await page.evaluate(() => window.oroyaViewer.error());
      check(err === '', `${m.file} clip '${clips[i]}' plays${err ? ': ' + err : ''}`);
    }
  }
  // A warped cross-fade from walk to run through the page's controls (humanoid67 is open).
  const fade = await page.evaluate(() => {
    const v = window.oroyaViewer;
    v.poseAt(0, 0.1);
    v.crossFade(0, 1, 0.5, true);
    const mid = v.step(0.25);
    v.step(0.2);
    const end = v.step(0.1);
    return { mid, end };
  });
  check(Math.abs(fade.mid[0].weight - 0.5) < 1e-6 && Math.abs(fade.mid[1].weight - 0.5) < 1e-6 &&
    fade.end[0].weight === 0 && !fade.end[0].running && fade.end[1].weight === 1 && fade.end[1].running,
    `cross-fade walk -> run over 0.5 s with warp: weights ${fade.mid[0].weight.toFixed(3)}/${fade.mid[1].weight.toFixed(3)} ` +
    `half way, ${fade.end[0].weight}/${fade.end[1].weight} after (walk ${fade.end[0].running ? 'still running' : 'stopped'})`);
  const hud = await page.evaluate(() => document.getElementById('hud').textContent);
  check(/animation [0-9.]+ µs\/frame/.test(hud), `viewer shows the animation cost: "${hud}"`);

  // ---- 3: a rendered frame against the golden image -------------------------------------------
  await page.evaluate(() => window.oroyaViewer.loadUrl('assets/CesiumMan.glb'));
  await page.evaluate(() => window.oroyaViewer.poseAt(0, 0.75));
  const shot = await page.evaluate(() => window.oroyaViewer.snapshot());
  const png = Buffer.from(shot.png.split(',')[1], 'base64');
  fs.writeFileSync(path.join(outDir, 'viewer_cesiumman.png'), png);
  await page.screenshot({ path: path.join(outDir, 'viewer_page.png') });
  if (process.env.OROYA_UPDATE_GOLDEN === '1') {
    fs.mkdirSync(path.dirname(golden), { recursive: true });
    fs.writeFileSync(golden, png);
    console.log(`wrote ${golden}`);
  }
  const goldenUrl = 'data:image/png;base64,' + fs.readFileSync(golden).toString('base64');
  const img = await page.evaluate(async (a, b) => {
    const load = (src) => new Promise((res, rej) => { const i = new Image(); i.onload = () => res(i); i.onerror = rej; i.src = src; });
    const [x, y] = await Promise.all([load(a), load(b)]);
    const px = (i) => { const c = document.createElement('canvas'); c.width = i.width; c.height = i.height;
      const g = c.getContext('2d'); g.drawImage(i, 0, 0); return g.getImageData(0, 0, i.width, i.height).data; };
    const p = px(x), bg = [p[0], p[1], p[2]], n = p.length / 4;
    // "Something is drawn": pixels far from the top-left (background) color.
    let model = 0;
    for (let k = 0; k < p.length; k += 4) {
      if (Math.abs(p[k] - bg[0]) + Math.abs(p[k + 1] - bg[1]) + Math.abs(p[k + 2] - bg[2]) > 60) model++;
    }
    const size = `${x.width}x${x.height}`;
    if (x.width !== y.width || x.height !== y.height) return { drawn: model / n, size: `${size}, golden ${y.width}x${y.height}` };
    const q = px(y);
    let bad = 0, sum = 0;
    for (let k = 0; k < p.length; k += 4) {
      const d = Math.max(Math.abs(p[k] - q[k]), Math.abs(p[k + 1] - q[k + 1]), Math.abs(p[k + 2] - q[k + 2]));
      sum += d;
      if (d > 32) bad++;
    }
    return { mean: sum / n, bad: bad / n, drawn: model / n, size };
  }, shot.png, goldenUrl);
  check(img.drawn > 0.05, `the frame shows the model and the ground (${((img.drawn || 0) * 100).toFixed(1)} % of pixels off the background, ${img.size})`);
  check(img.mean !== undefined && img.mean < 4 && img.bad < 0.02,
    `the frame (${img.size}) matches tests/web/golden/viewer_cesiumman.png: mean difference ${img.mean?.toFixed(2)}, ` +
    `${((img.bad || 0) * 100).toFixed(2)} % of pixels off by more than 32 (limits 4 and 2 %)`);

  // ---- 4: bad files show the library's message ------------------------------------------------
  const cesium = fs.readFileSync(path.join(web, 'assets/CesiumMan.glb'));
  const bad = [
    { name: 'garbage.glb', bytes: [1, 2, 3, 4, 5], expect: /garbage\.glb: .+/ },
    { name: 'truncated.glb', bytes: Array.from(cesium.subarray(0, 2000)), expect: /truncated\.glb: .*(glb|GLB|chunk|length|bytes)/ },
    { name: 'bad-index.gltf', bytes: Array.from(Buffer.from('{"asset":{"version":"2.0"},"nodes":[{"mesh":3}]}')),
      expect: /bad-index\.gltf: nodes\[0\]\.mesh/ },
  ];
  for (const b of bad) {
    // Through the real drop handler: a DataTransfer with the file, dropped on the view.
    await page.evaluate((bytes, name) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], name));
      document.getElementById('main').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, b.bytes, b.name);
    await page.waitForFunction(() => window.oroyaViewer.error() !== '', { timeout: 10000 }).catch(() => {});
    const msg = await page.evaluate(() => window.oroyaViewer.error());
    const shown = await page.evaluate(() => getComputedStyle(document.getElementById('error')).display !== 'none');
    check(shown && b.expect.test(msg), `dropping ${b.name} shows the library's error: "${msg}"`);
    await page.evaluate(() => window.oroyaViewer.loadUrl('assets/CesiumMan.glb'));
  }
  check(problems.length === 0, `viewer: no console error, no uncaught exception${problems.length ? ': ' + problems.slice(0, 5).join(' | ') : ''}`);
  await page.close();

  // ---- 5: the race at N = 100 ------------------------------------------------------------------
  const race = await openPage('/race/?n=100', 'window.race && window.race.ready');
  const raceError = await race.page.evaluate(() => window.race.error || '');
  check(raceError === '', `race page starts${raceError ? ': ' + raceError : ''}`);
  if (!raceError) {
    const r = await race.page.evaluate(() => window.race.measure({ n: 100, frames: 20, rounds: 7 }));
    console.log(`web_race_oroya_us ${r.oroya_us.toFixed(1)} us`);
    console.log(`web_race_three_us ${r.three_us.toFixed(1)} us`);
    console.log(`web_race_speedup ${r.speedup.toFixed(2)} x`);
    console.log(`web_race_oroya_pose_us ${r.pose_us.toFixed(1)} us`);
    console.log(`web_race_pose_speedup ${r.pose_speedup.toFixed(2)} x`);
    console.log(`(N = ${r.n}, per frame, median of ${r.rounds} rounds of ${r.frames} frames; build ${r.build}; ` +
      `oroya ${r.oroya_runs.map((v) => v.toFixed(0))}, pose ${r.pose_runs.map((v) => v.toFixed(0))}, three ${r.three_runs.map((v) => v.toFixed(0))})`);
    check(Number.isFinite(r.speedup) && r.oroya_us > 0 && r.three_us > 0, 'race figures are finite and positive');
    check(r.bone_diff < 1e-4 && r.pose_bone_diff < 1e-4,
      `same blend in both libraries: largest bone matrix difference to three.js ${r.bone_diff.toExponential(2)} (mixer), ` +
      `${r.pose_bone_diff.toExponential(2)} (pose kernel)`);
  }
  check(race.problems.length === 0, `race: no console error, no uncaught exception${race.problems.length ? ': ' + race.problems.slice(0, 5).join(' | ') : ''}`);
} catch (e) {
  check(false, `test aborted: ${e.stack || e}`);
} finally {
  clearTimeout(timer);
  await browser.close();
  server.proc.kill();
  fs.rmSync(profile, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
