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
//      (and the pose-kernel figures), and oroya's bone matrices agree with three.js's;
//   6. the glue refuses what it cannot do with a message in ow_error() and never traps: calls
//      before a load, after a free, a second free, clip indices out of range, non-finite
//      arguments, crowds of 4 billion characters (also from the race page's ?n=); loading and
//      freeing 100 times leaks nothing; a file whose skin the pose kernel cannot take plays.
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
  // Every uncaught error and unhandled rejection, recorded before the page's own handlers
  // (which show them on the page and call preventDefault, so puppeteer's pageerror misses the
  // rejections); read back by pageProblems.
  await page.evaluateOnNewDocument(() => {
    window.__problems = [];
    window.addEventListener('error', (e) => window.__problems.push(`uncaught: ${e.message}`));
    window.addEventListener('unhandledrejection', (e) =>
      window.__problems.push(`unhandled rejection: ${e.reason && e.reason.message || e.reason}`));
  });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.goto(base + url, { waitUntil: 'load' });
  await page.waitForFunction(ready, { timeout: 60000 });
  return { page, problems };
}

// The page's problems: puppeteer's, and the errors and rejections the page itself caught.
async function pageProblems(p) {
  const seen = await p.page.evaluate(() => window.__problems || []).catch((e) => [`page gone: ${e}`]);
  return [...p.problems, ...seen];
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
  const viewer = await openPage(`/?file=${models[0].file}`, 'window.oroyaViewer && window.oroyaViewer.ready');
  const { page } = viewer;
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
  // A skin the pose kernel cannot take (its joints are not in the loaded scene): the viewer
  // plays the file on the mixer's property path, as `oroya render` does, instead of refusing it.
  const odd = path.join(source, 'tests/gltf/odd/scene_meshes.gltf');
  const oddRes = await page.evaluate((b) => window.oroyaViewer.loadBytes(b, 'scene_meshes.gltf'),
    Array.from(fs.readFileSync(odd)));
  check(oddRes.ok, `viewer opens tests/gltf/odd/scene_meshes.gltf (skin 0 outside the scene: no rig)${oddRes.ok ? '' : ': ' + oddRes.error}`);

  // ---- 6: the glue's answers to wrong calls, on a second module in the viewer's page ---------
  const glue = await page.evaluate(async (humUrl, cesiumUrl) => {
    const { loadOroya } = await import('/oroya_module.js');
    const ow = await loadOroya('/');
    const out = [];
    try {
    const err = () => ow.UTF8ToString(ow._ow_error());
    const bytesOf = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
    const [hum, cesium] = [await bytesOf(humUrl), await bytesOf(cesiumUrl)];
    const put = (b) => { const p = ow._malloc(b.length); ow.HEAPU8.set(b, p); return p; };
    const str = (s) => { const n = ow.lengthBytesUTF8(s) + 1, p = ow._malloc(n); ow.stringToUTF8(s, p, n); return p; };
    const load = (b) => { const p = put(b); const h = ow._ow_model_load(p, b.length); ow._free(p); return h; };
    // name, () => result code (non-zero expected), message pattern
    const refuse = (name, fn, re) => {
      let r, e = '';
      try { r = fn(); } catch (x) { e = String(x); }
      const m = e ? '' : err();
      out.push({ name, ok: !e && r !== 0 && re.test(m), got: e ? `threw ${e}` : `${r}, "${m}"` });
    };
    refuse('ow_play before a load', () => ow._ow_play(0, 0), /ow_play: 0 is not a model handle/);
    refuse('ow_update before a load', () => ow._ow_update(0, 1 / 60), /ow_update: .*not a model handle/);
    refuse('ow_set_time_scale before a load', () => ow._ow_set_time_scale(0, 1), /not a model handle/);
    const m = load(cesium);
    out.push({ name: 'load CesiumMan', ok: m !== 0, got: `${m} ${err()}` });
    refuse('ow_play clip 99', () => ow._ow_play(m, 99), /clip 99 is out of range \(1 clips\)/);
    refuse('ow_cross_fade to clip 99', () => ow._ow_cross_fade(m, 0, 99, 1, 1), /clip 99 is out of range/);
    refuse('ow_set_weight NaN', () => ow._ow_set_weight(m, 0, NaN), /ow_set_weight: .+/);
    refuse('ow_set_action_time_scale NaN', () => ow._ow_set_action_time_scale(m, 0, NaN), /ow_set_action_time_scale: .+/);
    refuse('ow_set_time_scale Infinity', () => ow._ow_set_time_scale(m, Infinity), /ow_set_time_scale: .+/);
    refuse('ow_cross_fade duration NaN', () => ow._ow_cross_fade(m, 0, 0, NaN, 1), /ow_cross_fade: .+/);
    refuse('ow_update NaN', () => ow._ow_update(m, NaN), /ow_update|oroya_mixer_update: .+/);
    refuse('ow_set_time NaN', () => ow._ow_set_time(m, NaN), /oroya_mixer_set_time: .+/);
    const trs = ow._malloc(40);
    const fine = ow._ow_play(m, 0) === 0 && ow._ow_update(m, 0.1) === 0 && err() === '' && ow._ow_node_trs(m, 1, trs) === 1 &&
      Array.from(ow.HEAPF32.subarray(trs >> 2, (trs >> 2) + 10)).every(Number.isFinite);
    out.push({ name: 'the model plays on after the refused calls', ok: fine, got: err() });
    out.push({ name: 'ow_model_free', ok: ow._ow_model_free(m) === 0, got: err() });
    refuse('ow_update after free', () => ow._ow_update(m, 0.1), /not a model handle/);
    refuse('ow_draw_count after free (0)', () => (ow._ow_draw_count(m) === 0 ? 1 : 0), /ow_draw_count: .*not a model handle/);
    refuse('ow_model_free twice', () => ow._ow_model_free(m), /ow_model_free: .*not a model handle/);
    const heap0 = ow.HEAPU8.length, a = str('walk'), b = str('run'), hp = put(hum);
    for (const n of [0xFFFFFFFF, -1, 100001]) {
      refuse(`ow_crowd_create of ${n} characters`, () => (ow._ow_crowd_create(hp, hum.length, n, a, 0.6, b, 0.4, 0.01) ? 0 : 1), /crowd: \d+ characters is more than/);
      refuse(`ow_pose_crowd_create of ${n} characters`, () => (ow._ow_pose_crowd_create(hp, hum.length, n, a, 0.6, b, 0.4, 0.01) ? 0 : 1), /pose crowd: \d+ characters is more than/);
    }
    refuse('ow_pose_crowd_create weight NaN', () => (ow._ow_pose_crowd_create(hp, hum.length, 2, a, NaN, b, 0.4, 0.01) ? 0 : 1), /must be finite/);
    out.push({ name: 'the heap did not grow for the refused crowds', ok: ow.HEAPU8.length === heap0, got: `${heap0} -> ${ow.HEAPU8.length}` });
    const pc = ow._ow_pose_crowd_create(hp, hum.length, 2, a, 0.6, b, 0.4, 0.01);
    refuse('ow_pose_crowd_update NaN', () => ow._ow_pose_crowd_update(pc, NaN), /dt nan is not a finite number/);
    out.push({ name: 'the pose crowd updates after a refused dt', ok: pc !== 0 && ow._ow_pose_crowd_update(pc, 0.1) === 0, got: err() });
    out.push({ name: 'ow_pose_crowd_free', ok: ow._ow_pose_crowd_free(pc) === 0, got: err() });
    refuse('ow_pose_crowd_free twice', () => ow._ow_pose_crowd_free(pc), /not a pose crowd handle/);
    const c = ow._ow_crowd_create(hp, hum.length, 3, a, 0.6, b, 0.4, 0.01);
    out.push({ name: 'ow_crowd_free', ok: c !== 0 && ow._ow_crowd_free(c) === 0, got: err() });
    refuse('ow_crowd_update after free', () => ow._ow_crowd_update(c, 0.1), /not a crowd handle/);
    refuse('a crowd handle used as a model', () => ow._ow_play(ow._ow_crowd_create(hp, hum.length, 1, a, 0.6, b, 0.4, 0), 0), /not a model handle/);
    // Leaks: 100 loads and frees (and 100 refused loads) leave the heap's use as it was.
    const used0 = ow._ow_heap_used();
    for (let k = 0; k < 100; k++) {
      const h = load(hum);
      if (!h || ow._ow_update(h, 0.1) !== 0 || ow._ow_model_free(h) !== 0) { out.push({ name: `load/free ${k}`, ok: false, got: err() }); break; }
      if (load(hum.subarray(0, hum.length - 100))) out.push({ name: 'a truncated file loads', ok: false, got: '' });
    }
    const used1 = ow._ow_heap_used();
    out.push({ name: '100 loads and frees of humanoid67 leak nothing', ok: used1 === used0, got: `${used0} -> ${used1} bytes in use` });
    } catch (e) {
      out.push({ name: 'the glue checks ran to the end', ok: false, got: String(e) });
    }
    return out;
  }, '/assets/humanoid67.glb', '/assets/CesiumMan.glb').catch((e) => [{ name: 'the glue checks ran', ok: false, got: String(e) }]);
  for (const g of glue) check(g.ok, `glue: ${g.name}: ${g.got}`);

  const vp = await pageProblems(viewer);
  check(vp.length === 0, `viewer: no console error, no uncaught exception${vp.length ? ': ' + vp.slice(0, 5).join(' | ') : ''}`);
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
  const rp = await pageProblems(race);
  check(rp.length === 0, `race: no console error, no uncaught exception${rp.length ? ': ' + rp.slice(0, 5).join(' | ') : ''}`);
  await race.page.close();

  // The race's ?n=: a value that is not a whole number 1..10000 is refused on the page (-1 was
  // 4294967295 characters to the wasm: the heap grew to 2 GB and the module trapped); N = 1's
  // figures are finite (the median of single frames was 0 under the timer's 100 µs resolution).
  const badN = await openPage('/race/?n=-1', 'window.race && window.race.ready');
  const badText = await badN.page.evaluate(() => ({ error: document.getElementById('error').textContent, n: document.querySelector('button.on')?.dataset.n }));
  check(/\?n=-1: N is a whole number from 1 to 10000/.test(badText.error) && badText.n === '100',
    `race ?n=-1 is refused on the page and N = 100 runs: "${badText.error}"`);
  await badN.page.close();
  const one = await openPage('/race/?n=1', 'window.race && window.race.ready && /^N = 1 .*last 120 frames/.test(document.getElementById("out").textContent)');
  const oneText = await one.page.evaluate(() => document.getElementById('out').textContent);
  check(!/Infinity|NaN/.test(oneText) && /oroya-wasm, mixer +\d/.test(oneText), `race N = 1 prints finite figures: ${JSON.stringify(oneText.split('\n').slice(0, 2))}`);
  const op = await pageProblems(one);
  check(op.length === 0, `race ?n=1: no console error, no uncaught exception${op.length ? ': ' + op.slice(0, 5).join(' | ') : ''}`);
  await one.page.close();
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
