// The oroya viewer: opens a .glb (file picker, drag and drop, bundled samples), lists its clips
// and plays them through oroya's mixer (WebAssembly), with cross-fades (optionally warped),
// per-action weights and the mixer's time scale, as three.js's skinning-blending example.
// Errors from the library (a bad file) are shown on the page.
import { loadOroya, withBytes, lastError } from './oroya_module.js';
import { Renderer } from './renderer.js';

const $ = (id) => document.getElementById(id);
const errorBox = $('error'), hud = $('hud');

function showError(msg) {
  errorBox.textContent = msg;
  errorBox.style.display = msg ? 'block' : 'none';
}
window.addEventListener('error', (e) => showError('error: ' + (e.error ? e.error.message : e.message)));
window.addEventListener('unhandledrejection', (e) => {
  showError('error: ' + (e.reason && e.reason.message ? e.reason.message : String(e.reason)));
  e.preventDefault();
});

const state = {
  ow: null, renderer: null, model: 0, name: '', clips: [], paused: false, step: 0,
  camera: null, yaw: 0.6, pitch: 0.25, distance: 3, target: [0, 1, 0],
  animUs: [], frames: 0, lastTime: 0,
};

function resize() {
  const c = $('view'), r = c.getBoundingClientRect();
  const w = Math.max(1, Math.round(r.width)), h = Math.max(1, Math.round(r.height));
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
}

function frameCamera() {
  const { lo, hi } = state.renderer.bounds();
  if (!lo.every(Number.isFinite)) { state.target = [0, 1, 0]; state.distance = 3; state.ground = 0; return; }
  state.target = lo.map((v, i) => (v + hi[i]) / 2);
  const size = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) || 1;
  state.distance = size * 1.8;
  state.ground = lo[1];
  state.size = size;
}

function camera() {
  const d = state.distance, t = state.target;
  const eye = [t[0] + d * Math.cos(state.pitch) * Math.sin(state.yaw), t[1] + d * Math.sin(state.pitch),
    t[2] + d * Math.cos(state.pitch) * Math.cos(state.yaw)];
  return { eye, at: t, near: d / 100, far: d * 100, ground: state.ground,
    gridSpacing: Math.pow(10, Math.round(Math.log10((state.size || 1) / 4))) };
}

// Loads a model from bytes; on failure shows the library's message and keeps the old model.
function loadBytes(bytes, name) {
  const ow = state.ow;
  const model = withBytes(ow, bytes, (p, n) => ow._ow_model_load(p, n));
  if (!model) {
    const msg = `${name}: ${lastError(ow) || 'could not be loaded'}`;
    showError(msg);
    return { ok: false, error: msg };
  }
  showError('');
  if (state.model) ow._ow_model_free(state.model);
  state.model = model;
  state.name = name;
  state.animUs = []; // the HUD's mean is of this model's frames
  state.renderer.setModel(model);
  buildClipUi();
  // Play the first clip, as the examples do.
  if (state.clips.length) setPlaying(0, true);
  ow._ow_update(model, 0);
  frameCamera();
  $('file-name').innerHTML = '';
  $('file-name').append(Object.assign(document.createElement('b'), { textContent: name }),
    ` ${state.clips.length} clip(s), ${ow._ow_draw_count(model)} mesh(es)`);
  return { ok: true };
}

async function loadUrl(url) {
  const r = await fetch(url);
  if (!r.ok) {
    const msg = `${url}: HTTP ${r.status}`;
    showError(msg);
    return { ok: false, error: msg };
  }
  return loadBytes(new Uint8Array(await r.arrayBuffer()), url.split('/').pop());
}

async function loadFile(file) {
  return loadBytes(new Uint8Array(await file.arrayBuffer()), file.name);
}

function setPlaying(i, on) {
  const ow = state.ow, m = state.model;
  if (on) {
    ow._ow_reset(m, i);
    ow._ow_set_weight(m, i, Number(state.clips[i].slider.value));
    ow._ow_play(m, i);
  } else {
    ow._ow_stop(m, i);
  }
  state.clips[i].check.checked = on;
}

function buildClipUi() {
  const ow = state.ow, m = state.model, box = $('clips');
  box.innerHTML = '';
  state.clips = [];
  const from = $('fade-from'), to = $('fade-to');
  from.innerHTML = to.innerHTML = '';
  const n = ow._ow_clip_count(m);
  for (let i = 0; i < n; i++) {
    const name = ow.UTF8ToString(ow._ow_clip_name(m, i)) || `animation_${i}`;
    const row = document.createElement('div');
    row.className = 'clip';
    const check = Object.assign(document.createElement('input'), { type: 'checkbox' });
    const label = Object.assign(document.createElement('span'), { className: 'name', textContent: name,
      title: `${name}: ${ow._ow_clip_duration(m, i).toFixed(3)} s` });
    const slider = Object.assign(document.createElement('input'),
      { type: 'range', min: 0, max: 1, step: 0.01, value: 1 });
    const eff = document.createElement('span');
    check.addEventListener('change', () => setPlaying(i, check.checked));
    slider.addEventListener('input', () => ow._ow_set_weight(m, i, Number(slider.value)));
    row.append(check, label, slider, eff);
    box.append(row);
    state.clips.push({ name, check, slider, eff });
    for (const s of [from, to]) s.append(new Option(name, i));
  }
  if (n > 1) to.value = 1;
}

function crossFade() {
  const ow = state.ow, m = state.model;
  const a = Number($('fade-from').value), b = Number($('fade-to').value);
  if (!m || a === b) return;
  if (!state.clips[a].check.checked) setPlaying(a, true);
  const r = ow._ow_cross_fade(m, a, b, Number($('fade-dur').value) || 0, $('fade-warp').checked ? 1 : 0);
  if (r !== 0) showError(`cross-fade: ${lastError(state.ow) || 'error ' + r}`);
  state.clips[b].check.checked = true;
  state.clips[b].slider.value = 1;
}

// One animation step: the mixer, world matrices, bone matrices. Timed on its own.
function animate(dt) {
  const ow = state.ow, t0 = performance.now();
  const r = ow._ow_update(state.model, dt);
  const us = (performance.now() - t0) * 1000;
  if (r !== 0) showError(`update: ${lastError(ow)}`);
  state.animUs.push(us);
  if (state.animUs.length > 120) state.animUs.shift();
}

function tick(now) {
  requestAnimationFrame(tick);
  resize();
  const dt = state.lastTime ? Math.min((now - state.lastTime) / 1000, 0.1) : 0;
  state.lastTime = now;
  if (state.model) {
    if (!state.paused) animate(dt);
    else if (state.step) { animate(state.step); state.step = 0; }
    const ow = state.ow;
    state.clips.forEach((c, i) => {
      c.eff.textContent = ow._ow_weight(state.model, i).toFixed(2);
      c.check.checked = ow._ow_action_running(state.model, i) === 1 || (c.check.checked && state.paused);
    });
  }
  state.renderer.draw(camera());
  state.frames++;
  const avg = state.animUs.length ? state.animUs.reduce((a, b) => a + b, 0) / state.animUs.length : 0;
  hud.textContent = state.model
    ? `animation ${avg.toFixed(1)} µs/frame (mixer + world + bone matrices, mean of ${state.animUs.length})` +
      `  t=${state.ow._ow_mixer_time(state.model).toFixed(2)} s`
    : 'no model';
}

function controls() {
  $('file').addEventListener('change', (e) => { if (e.target.files[0]) loadFile(e.target.files[0]); });
  $('sample').addEventListener('change', (e) => loadUrl(e.target.value));
  const main = $('main'), drop = $('drop');
  main.addEventListener('dragover', (e) => { e.preventDefault(); drop.style.display = 'flex'; });
  main.addEventListener('dragleave', () => { drop.style.display = 'none'; });
  main.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.style.display = 'none';
    const f = e.dataTransfer.files[0];
    if (f) loadFile(f);
  });
  $('fade').addEventListener('click', crossFade);
  $('all-on').addEventListener('click', () => state.clips.forEach((c, i) => setPlaying(i, true)));
  $('all-off').addEventListener('click', () => state.clips.forEach((c, i) => setPlaying(i, false)));
  $('time-scale').addEventListener('input', (e) => {
    state.ow._ow_set_time_scale(state.model, Number(e.target.value));
    $('time-scale-v').textContent = Number(e.target.value).toFixed(2);
  });
  $('pause').addEventListener('click', () => {
    state.paused = !state.paused;
    $('pause').textContent = state.paused ? 'continue' : 'pause';
  });
  $('step').addEventListener('click', () => {
    if (!state.paused) { state.paused = true; $('pause').textContent = 'continue'; }
    state.step = Number($('step-size').value) || 0;
  });
  const c = $('view');
  let drag = null;
  c.addEventListener('pointerdown', (e) => { drag = [e.clientX, e.clientY]; c.setPointerCapture(e.pointerId); });
  c.addEventListener('pointerup', () => { drag = null; });
  c.addEventListener('pointermove', (e) => {
    if (!drag) return;
    state.yaw -= (e.clientX - drag[0]) * 0.01;
    state.pitch = Math.max(-1.4, Math.min(1.4, state.pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY];
  });
  c.addEventListener('wheel', (e) => { e.preventDefault(); state.distance *= Math.exp(e.deltaY * 0.001); }, { passive: false });
}

// What the browser test drives (tests/web/test_web.mjs): load a file, pose at a time, read back.
window.oroyaViewer = {
  loadUrl, loadBytes: (arr, name) => loadBytes(new Uint8Array(arr), name),
  error: () => errorBox.style.display === 'none' ? '' : errorBox.textContent,
  clips: () => state.clips.map((c) => c.name),
  pause(p) { state.paused = p; },
  // Plays clip i alone at weight 1 and sets the mixer time to t (three's mixer.setTime).
  poseAt(i, t) {
    const ow = state.ow, m = state.model;
    state.paused = true;
    state.clips.forEach((c, k) => setPlaying(k, false));
    state.clips[i].slider.value = 1;
    setPlaying(i, true);
    const r = ow._ow_set_time(m, t);
    if (r !== 0) throw new Error(lastError(ow));
    return ow._ow_action_time(m, i);
  },
  // Every node's local TRS (and morph weights) and every skin's bone matrices, by the names
  // `oroya sample` prints.
  pose() {
    const ow = state.ow, m = state.model, nodes = {}, skins = {};
    const buf = ow._malloc(4 * 1024);
    try {
      for (let i = 0, n = ow._ow_node_count(m); i < n; i++) {
        if (!ow._ow_node_trs(m, i, buf)) continue;
        const v = Array.from(ow.HEAPF32.subarray(buf >> 2, (buf >> 2) + 10));
        const e = { translation: v.slice(0, 3), rotation: v.slice(3, 7), scale: v.slice(7, 10) };
        const wc = ow._ow_node_weights(m, i, buf, 1024);
        if (wc) e.weights = Array.from(ow.HEAPF32.subarray(buf >> 2, (buf >> 2) + Math.min(wc, 1024)));
        nodes[ow.UTF8ToString(ow._ow_node_name(m, i))] = e;
      }
      for (let s = 0, n = ow._ow_skin_count(m); s < n; s++) {
        const jc = ow._ow_skin_joint_count(m, s), p = ow._malloc(jc * 64);
        ow._ow_skin_bone_matrices(m, s, p);
        skins[`skin:${s}`] = Array.from(ow.HEAPF32.subarray(p >> 2, (p >> 2) + jc * 16));
        ow._free(p);
      }
    } finally {
      ow._free(buf);
    }
    return { nodes, skins };
  },
  draw() { resize(); state.renderer.draw(camera()); },
  // Advances the animation by dt seconds (as one frame would) and returns every clip's
  // effective weight and whether it runs.
  step(dt) {
    animate(dt);
    return state.clips.map((c, i) => ({ weight: state.ow._ow_weight(state.model, i),
      running: state.ow._ow_action_running(state.model, i) === 1 }));
  },
  // The cross-fade button with these settings.
  crossFade(from, to, duration, warp) {
    $('fade-from').value = from;
    $('fade-to').value = to;
    $('fade-dur').value = duration;
    $('fade-warp').checked = warp;
    $('fade').click();
  },
  // Draws the current pose and returns the canvas as a PNG data URL, read back in the same
  // task as the draw (the drawing buffer is not preserved).
  snapshot() {
    resize();
    state.renderer.draw(camera());
    const src = $('view'), c = document.createElement('canvas');
    c.width = src.width;
    c.height = src.height;
    const g = c.getContext('2d');
    g.drawImage(src, 0, 0);
    return { width: c.width, height: c.height, png: c.toDataURL('image/png') };
  },
  frames: () => state.frames,
  // Mean µs of `frames` animation steps of 1/60 s (the viewer is paused meanwhile).
  benchUpdate(frames) {
    const ow = state.ow, m = state.model, t0 = performance.now();
    for (let i = 0; i < frames; i++) ow._ow_update(m, 1 / 60);
    return (performance.now() - t0) * 1000 / frames;
  },
};

async function main() {
  state.ow = await loadOroya('./');
  state.renderer = new Renderer($('view'), state.ow);
  controls();
  requestAnimationFrame(tick);
  const params = new URLSearchParams(location.search);
  const url = params.get('file') || $('sample').value;
  if ([...$('sample').options].some((o) => o.value === url)) $('sample').value = url;
  const res = await loadUrl(url);
  window.oroyaViewer.ready = true;
  return res;
}
window.oroyaViewer.started = main().catch((e) => { showError('error: ' + e.message); window.oroyaViewer.ready = true; });
