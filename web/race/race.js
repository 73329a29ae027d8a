// The race: N copies of humanoid67 animated by oroya (WebAssembly, web/build/oroya.js) and by
// three.js (node_modules/three, pinned by web/package-lock.json), the same walk/run blend, each
// library's per-frame animation cost measured in the same page.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { loadOroya, withBytes, withString, lastError, buildName } from '../oroya_module.js';

const WALK = 0.6, RUN = 0.4, OFFSET = 0.0137, DT = 1 / 60;
const MAX_N = 10000; // ?n= accepts whole numbers 1..MAX_N
const $ = (id) => document.getElementById(id);
const errorBox = $('error');
function showError(msg) { errorBox.textContent = msg; errorBox.style.display = msg ? 'block' : 'none'; }
window.addEventListener('error', (e) => showError('error: ' + (e.error ? e.error.message : e.message)));
window.addEventListener('unhandledrejection', (e) => { showError('error: ' + (e.reason && e.reason.message || e.reason)); e.preventDefault(); });

let ow, bytes, gltf;
const st = { n: 0, crowd: 0, three: [], history: [], paused: false };

// ---- oroya ----------------------------------------------------------------------------------
function oroyaCreate(n) {
  if (st.crowd) ow._ow_crowd_free(st.crowd);
  st.crowd = withBytes(ow, bytes, (p, size) => withString(ow, 'walk', (a) => withString(ow, 'run',
    (b) => ow._ow_crowd_create(p, size, n, a, WALK, b, RUN, OFFSET))));
  if (!st.crowd) throw new Error('oroya: ' + lastError(ow));
}
function oroyaFrame(dt) {
  if (ow._ow_crowd_update(st.crowd, dt) !== 0) throw new Error('oroya: ' + lastError(ow));
}
// The same blend through oroya's pose kernel (the runtime the mixer is moving onto).
function poseCreate(n) {
  if (st.pose) ow._ow_pose_crowd_free(st.pose);
  st.pose = withBytes(ow, bytes, (p, size) => withString(ow, 'walk', (a) => withString(ow, 'run',
    (b) => ow._ow_pose_crowd_create(p, size, n, a, WALK, b, RUN, OFFSET))));
  if (!st.pose) throw new Error('oroya pose: ' + lastError(ow));
}
function poseFrame(dt) {
  if (ow._ow_pose_crowd_update(st.pose, dt) !== 0) throw new Error('oroya pose: ' + lastError(ow));
}
function poseBones(i) {
  const p = ow._ow_pose_crowd_bones(st.pose, i) >> 2, n = ow._ow_crowd_bone_count(st.crowd);
  return ow.HEAPF32.subarray(p, p + n * 16);
}
function oroyaBones(i) {
  const p = ow._ow_crowd_bones(st.crowd, i) >> 2, n = ow._ow_crowd_bone_count(st.crowd);
  return ow.HEAPF32.subarray(p, p + n * 16);
}

// ---- three.js -------------------------------------------------------------------------------
function threeCreate(n) {
  const walk = THREE.AnimationClip.findByName(gltf.animations, 'walk');
  const run = THREE.AnimationClip.findByName(gltf.animations, 'run');
  st.three = [];
  for (let i = 0; i < n; i++) {
    const root = SkeletonUtils.clone(gltf.scene);
    const mixer = new THREE.AnimationMixer(root);
    const a = mixer.clipAction(walk), b = mixer.clipAction(run);
    a.setEffectiveWeight(WALK); b.setEffectiveWeight(RUN);
    a.play(); b.play();
    a.time = b.time = i * OFFSET;
    const skinned = [];
    root.traverse((o) => { if (o.isSkinnedMesh) skinned.push(o); });
    st.three.push({ root, mixer, skinned });
  }
}
function threeFrame(dt) {
  for (const c of st.three) {
    c.mixer.update(dt);
    c.root.updateMatrixWorld();
    for (const m of c.skinned) m.skeleton.update();
  }
}

// ---- measuring ------------------------------------------------------------------------------
function setN(n) {
  st.n = n;
  oroyaCreate(n);
  poseCreate(n);
  threeCreate(n);
  // Warm up (the wasm and JS compilers' first calls, as measure() does) before the history
  // starts: the printed mean is of the steady state.
  for (let i = 0; i < 30; i++) { oroyaFrame(DT); poseFrame(DT); threeFrame(DT); }
  st.history = [];
  for (const b of document.querySelectorAll('button[data-n]')) b.classList.toggle('on', Number(b.dataset.n) === n);
}

function timeIt(fn, frames) {
  const t0 = performance.now();
  for (let i = 0; i < frames; i++) fn(DT);
  return (performance.now() - t0) * 1000 / frames;
}

function median(v) { const s = [...v].sort((a, b) => a - b), k = s.length >> 1; return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2; }

// Largest difference between the two libraries' bone matrices of copy i (same clips, times).
function maxBoneDiff(i, bones = oroyaBones) {
  const a = bones(i), b = st.three[i].skinned[0].skeleton.boneMatrices;
  let d = 0;
  for (let k = 0; k < a.length; k++) d = Math.max(d, Math.abs(a[k] - b[k]));
  return d;
}

// A fixed measurement (the browser test calls it): N copies, `rounds` rounds alternating the
// two libraries, `frames` frames each; per-frame µs, median over rounds.
function measure({ n = 100, frames = 20, rounds = 7 } = {}) {
  const was = st.paused;
  st.paused = true;
  if (n !== st.n) setN(n);
  oroyaFrame(DT); poseFrame(DT); threeFrame(DT); // warm up
  timeIt(oroyaFrame, frames); timeIt(poseFrame, frames); timeIt(threeFrame, frames);
  const o = [], q = [], t = [];
  for (let r = 0; r < rounds; r++) {
    o.push(timeIt(oroyaFrame, frames));
    q.push(timeIt(poseFrame, frames));
    t.push(timeIt(threeFrame, frames));
  }
  const res = { n, frames, rounds, oroya_us: median(o), pose_us: median(q), three_us: median(t),
    oroya_runs: o, pose_runs: q, three_runs: t, build: buildName(),
    bone_diff: maxBoneDiff(0), pose_bone_diff: maxBoneDiff(0, poseBones) };
  res.speedup = res.three_us / res.oroya_us;
  res.pose_speedup = res.three_us / res.pose_us;
  st.paused = was;
  return res;
}

// ---- page -----------------------------------------------------------------------------------
// The mean, not the median: performance.now() is rounded to 100 µs (with jitter) in a page
// that is not cross-origin isolated, so the median of single frames is a multiple of 100 µs
// (0 for a frame shorter than that, as oroya's at N = 1); the mean over many frames is not.
function mean(v) { return v.reduce((a, b) => a + b, 0) / v.length; }

function report() {
  const h = st.history.slice(-120);
  if (!h.length) return;
  const o = mean(h.map((x) => x[0])), q = mean(h.map((x) => x[2])), t = mean(h.map((x) => x[1]));
  const line = (name, v, vsThree) => `${name}${(v / 1000).toFixed(3).padStart(8)} ms/frame ${(v / st.n).toFixed(2).padStart(8)} µs per character` +
    (!vsThree ? '' : v > 0 ? `   ${(t / v).toFixed(2)}x three.js` : '   (under the timer resolution)') + '\n';
  $('out').textContent =
    `N = ${st.n}   (mean of the last ${h.length} frames; build ${buildName()}; three.js r${THREE.REVISION})\n` +
    line('oroya-wasm, mixer       ', o, true) + line('oroya-wasm, pose kernel ', q, true) + line('three.js                ', t, false) +
    `largest bone matrix difference to three.js, copy 0: mixer ${maxBoneDiff(0).toExponential(2)}, ` +
    `pose kernel ${maxBoneDiff(0, poseBones).toExponential(2)}`;
}

function plot() {
  const c = $('plot'), g = c.getContext('2d'), h = st.history.slice(-300);
  g.clearRect(0, 0, c.width, c.height);
  if (!h.length) return;
  const vals = h.flat().filter((v) => v > 0);
  const lo = Math.log10(Math.max(1, Math.min(...vals) / 2)), hi = Math.log10(Math.max(...vals) * 2);
  const y = (v) => c.height - 20 - (Math.log10(Math.max(v, 1)) - lo) / (hi - lo || 1) * (c.height - 30);
  g.fillStyle = '#888'; g.font = '11px monospace';
  for (let e = Math.ceil(lo); e <= hi; e++) {
    g.fillText(`${(10 ** e / 1000).toPrecision(1)} ms`, 4, y(10 ** e) - 2);
    g.fillRect(60, y(10 ** e), c.width - 60, 0.5);
  }
  [['#6fc', 0], ['#f96', 1], ['#8af', 2]].forEach(([col, k]) => {
    g.strokeStyle = col; g.beginPath();
    h.forEach((v, i) => { const x = 60 + i * (c.width - 60) / 300; if (i) g.lineTo(x, y(v[k])); else g.moveTo(x, y(v[k])); });
    g.stroke();
  });
}

// Stick figures from the bone matrices, seen from the side: joint position = bone matrix x
// bind-pose position.
let bindPos = null, parents = null;
function figures() {
  const c = $('figures'), g = c.getContext('2d');
  g.clearRect(0, 0, c.width, c.height);
  const count = Math.min(st.n, 4);
  const draw = (bones, ox) => {
    g.beginPath();
    for (let j = 0; j < parents.length; j++) {
      const p = parents[j];
      if (p < 0) continue;
      const P = (k) => { const m = bones.subarray(k * 16, k * 16 + 16), v = bindPos[k];
        // Seen from the side (z to the right, y up): the walk swings along z.
        return [m[2] * v[0] + m[6] * v[1] + m[10] * v[2] + m[14], m[1] * v[0] + m[5] * v[1] + m[9] * v[2] + m[13]]; };
      const a = P(j), b = P(p);
      g.moveTo(ox + a[0] * 110, 240 - a[1] * 110); g.lineTo(ox + b[0] * 110, 240 - b[1] * 110);
    }
    g.stroke();
  };
  for (let i = 0; i < count; i++) {
    g.strokeStyle = '#6fc'; draw(oroyaBones(i), 60 + i * 95);
    g.strokeStyle = '#f96'; draw(st.three[i].skinned[0].skeleton.boneMatrices, 500 + i * 95);
  }
}

function tick() {
  requestAnimationFrame(tick);
  if (st.paused || !st.n) return;
  const t0 = performance.now(); oroyaFrame(DT);
  const t1 = performance.now(); threeFrame(DT);
  const t2 = performance.now(); poseFrame(DT);
  const t3 = performance.now();
  st.history.push([(t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000]);
  if (st.history.length > 600) st.history.splice(0, 300);
  plot();
  figures();
  if (st.history.length % 10 === 0) report();
}

async function main() {
  ow = await loadOroya('../');
  $('build').textContent = `oroya build: ${buildName()}.js`;
  const r = await fetch('../assets/humanoid67.glb');
  if (!r.ok) throw new Error(`../assets/humanoid67.glb: HTTP ${r.status}`);
  const buf = await r.arrayBuffer();
  bytes = new Uint8Array(buf);
  gltf = await new Promise((res, rej) => new GLTFLoader().parse(buf.slice(0), '', res, rej));
  // Bind-pose joint positions (inverse of the inverse bind matrices) and parents, for drawing.
  const skin = [];
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) skin.push(o); });
  const bones = skin[0].skeleton.bones;
  bindPos = skin[0].skeleton.boneInverses.map((m) => new THREE.Vector3().setFromMatrixPosition(m.clone().invert()).toArray());
  parents = bones.map((b) => bones.indexOf(b.parent));
  // N from ?n=: a whole number 1..MAX_N (anything else would give the two libraries different
  // work, e.g. 2.5 copies, or ask the wasm heap for 4 billion characters).
  const q = new URLSearchParams(location.search).get('n');
  let n = 100;
  if (q !== null) {
    const v = Number(q);
    if (Number.isInteger(v) && v >= 1 && v <= MAX_N) n = v;
    else showError(`?n=${q}: N is a whole number from 1 to ${MAX_N}; running N = 100`);
  }
  setN(n);
  for (const b of document.querySelectorAll('button[data-n]')) b.addEventListener('click', () => setN(Number(b.dataset.n)));
  $('pause').addEventListener('click', () => { st.paused = !st.paused; $('pause').textContent = st.paused ? 'continue' : 'pause'; });
  requestAnimationFrame(tick);
}

// Milliseconds per frame of oroya's crowd over `frames` frames: mixer_ms is the whole batch update
// (sampling, blending, world and bone matrices in one kernel pass); world_ms and bones_ms are 0.
function profile(n, frames) {
  if (n !== st.n) setN(n);
  const p = ow._malloc(24);
  ow._ow_crowd_profile(st.crowd, frames, DT, p);
  const v = Array.from(ow.HEAPF64.subarray(p >> 3, (p >> 3) + 3)).map((x) => x / frames);
  ow._free(p);
  return { mixer_ms: v[0], world_ms: v[1], bones_ms: v[2] };
}

// CPU skinning of humanoid67's mesh (10,018 vertices) with copy 0's pose: ms per run.
function skinBench(iterations) {
  if (!st.n) setN(1);
  return ow._ow_pose_crowd_skin_bench(st.pose, iterations);
}

window.race = { measure, profile, skinBench, ready: false };
window.race.started = main().then(() => { window.race.ready = true; })
  .catch((e) => { showError('error: ' + e.message); window.race.ready = true; window.race.error = e.message; });
