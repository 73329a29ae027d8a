// Measures the two wasm builds against each other in one page (docs/performance.md).
import { withBytes, withString } from '../oroya_module.js';

const DT = 1 / 60, N = 100;
async function load(name) {
  await new Promise((res, rej) => { const s = document.createElement('script'); s.src = `../build/${name}.js`; s.onload = res; s.onerror = () => rej(new Error(`${name}.js did not load (make web)`)); document.head.append(s); });
  // Each script's `var createOroya` replaces the previous one; call it before the next loads.
  return createOroya(); // eslint-disable-line no-undef
}
function median(v) { const s = [...v].sort((a, b) => a - b), k = s.length >> 1; return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2; }

async function run({ rounds = 9, frames = 20, skins = 20 } = {}) {
  const bytes = new Uint8Array(await (await fetch('../assets/humanoid67.glb')).arrayBuffer());
  const builds = [];
  for (const name of ['oroya', 'oroya_portable']) {
    const ow = await load(name);
    const make = (fn) => withBytes(ow, bytes, (p, n) => withString(ow, 'walk', (a) => withString(ow, 'run', (b) => fn(p, n, N, a, 0.6, b, 0.4, 0.0137))));
    const pose = make(ow._ow_pose_crowd_create), crowd = make(ow._ow_crowd_create);
    if (!pose || !crowd) throw new Error(`${name}: ${ow.UTF8ToString(ow._ow_error())}`);
    builds.push({ name, ow, pose, crowd, poseUs: [], mixerUs: [], skinMs: [] });
  }
  const time = (fn) => { const t0 = performance.now(); for (let i = 0; i < frames; i++) fn(); return (performance.now() - t0) * 1000 / frames; };
  for (let r = -1; r < rounds; r++) {
    for (const b of builds) {
      const p = time(() => b.ow._ow_pose_crowd_update(b.pose, DT));
      const m = time(() => b.ow._ow_crowd_update(b.crowd, DT));
      const s = b.ow._ow_pose_crowd_skin_bench(b.pose, skins);
      if (r >= 0) { b.poseUs.push(p); b.mixerUs.push(m); b.skinMs.push(s); }
    }
  }
  const out = {};
  for (const b of builds) out[b.name] = { pose_us: median(b.poseUs), mixer_us: median(b.mixerUs), skin_ms: median(b.skinMs) };
  const [a, p] = [out.oroya, out.oroya_portable];
  out.ratio = { pose: p.pose_us / a.pose_us, mixer: p.mixer_us / a.mixer_us, skin: p.skin_ms / a.skin_ms };
  document.getElementById('out').textContent =
    `per frame, ${N} characters:   SIMD128      portable    portable/SIMD128\n` +
    `pose kernel          ${a.pose_us.toFixed(0).padStart(8)} µs ${p.pose_us.toFixed(0).padStart(8)} µs   ${out.ratio.pose.toFixed(2)}\n` +
    `mixer                ${a.mixer_us.toFixed(0).padStart(8)} µs ${p.mixer_us.toFixed(0).padStart(8)} µs   ${out.ratio.mixer.toFixed(2)}\n` +
    `skinning, 10k verts  ${a.skin_ms.toFixed(3).padStart(8)} ms ${p.skin_ms.toFixed(3).padStart(8)} ms   ${out.ratio.skin.toFixed(2)}`;
  return out;
}
window.simd = { result: run().catch((e) => { document.getElementById('out').textContent = 'error: ' + e.message; return { error: e.message }; }) };
