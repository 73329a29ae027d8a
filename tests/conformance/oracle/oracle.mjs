#!/usr/bin/env node
// Differential oracle: runs the real three.js animation system on a scenario
// file and prints the sampled results as JSON.
//
//   node oracle.mjs ../a_bounce.json > out.json
//   node oracle.mjs [--base DIR] < scenario.json
//
// The scenario format is specified in docs/scenario.md of the oroya checkout.
// Every behaviour below is three's own; the oracle only
// builds objects, calls the public API in a fixed order, and reads values back.

import * as THREE from 'three';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { realpathSync } from 'node:fs';
import { getCubicSplineFactory } from './gltf_cubic.mjs';
import { loadGltf, buildGltfScene, ambiguousTrackTargets, GltfError } from './gltf_scene.mjs';

export const FORMAT_VERSION = 1;
const EPS_AT = 1e-9; // an op with "at": A runs before the first update whose clock T >= A - EPS_AT

function threeVersion() {
	const entry = fileURLToPath(import.meta.resolve('three'));
	const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8'));
	return pkg.version;
}

class ScenarioError extends Error {}
function fail(msg) {
	throw new ScenarioError(msg);
}

const NAME_RE = /^[A-Za-z0-9_-]+$/;

const INTERP = {
	step: THREE.InterpolateDiscrete,
	discrete: THREE.InterpolateDiscrete,
	linear: THREE.InterpolateLinear,
	smooth: THREE.InterpolateSmooth,
};

const PROPS = {
	position: { path: 'position', Track: THREE.VectorKeyframeTrack, size: 3 },
	translation: { path: 'position', Track: THREE.VectorKeyframeTrack, size: 3 },
	rotation: { path: 'quaternion', Track: THREE.QuaternionKeyframeTrack, size: 4 },
	quaternion: { path: 'quaternion', Track: THREE.QuaternionKeyframeTrack, size: 4 },
	scale: { path: 'scale', Track: THREE.VectorKeyframeTrack, size: 3 },
	// typed tracks on a node's components (docs/scenario.md "Typed tracks")
	intensity: { path: 'intensity', Track: THREE.NumberKeyframeTrack, size: 1 },
	fov: { path: 'fov', Track: THREE.NumberKeyframeTrack, size: 1 },
	color: { path: 'material.color', Track: THREE.ColorKeyframeTrack, size: 3 },
	'material.color': { path: 'material.color', Track: THREE.ColorKeyframeTrack, size: 3 },
	visible: { path: 'visible', Track: THREE.BooleanKeyframeTrack, size: 1, bool: true },
};

// oroya's curves ("oroya": {"curves": ...}, docs/scenario.md "Curves"): three has none, so
// each curve is a NumberKeyframeTrack on a number property (original value 0) of this
// holder object under the root; three's own PropertyMixer then blends it.
const CURVE_HOLDER = 'oroya_curves';

const LOOP = { once: THREE.LoopOnce, repeat: THREE.LoopRepeat, pingpong: THREE.LoopPingPong };
const BLEND = { normal: THREE.NormalAnimationBlendMode, additive: THREE.AdditiveAnimationBlendMode };

function reps(v) {
	if (v === undefined || v === null || v === 'Infinity' || v === 'inf') return Infinity;
	if (typeof v !== 'number') fail(`bad repetitions ${JSON.stringify(v)}`);
	return v;
}

function num(v, what) {
	if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${what}: expected a finite number, got ${JSON.stringify(v)}`);
	return v;
}

function vecN(v, n, what) {
	if (!Array.isArray(v) || v.length !== n) fail(`${what}: expected ${n} numbers`);
	v.forEach((x, i) => num(x, `${what}[${i}]`));
	return v;
}

export async function runScenario(sc, opts = {}) {
	const cubic = opts.cubic || (await getCubicSplineFactory());
	try {
		return await runScenarioInner(sc, opts, cubic);
	} catch (e) {
		if (e instanceof GltfError) fail(e.message);
		throw e;
	}
}

async function runScenarioInner(sc, opts, cubic) {
	// ------------------------------------------------------------------ nodes
	const root = new THREE.Object3D();
	root.name = '__oracle_root__';
	const nodes = new Map();
	for (const n of sc.nodes || []) {
		if (!NAME_RE.test(n.name || '') || n.name === '__oracle_root__' || n.name === CURVE_HOLDER) fail(`node name ${JSON.stringify(n.name)} must match ${NAME_RE}`);
		if (nodes.has(n.name)) fail(`duplicate node ${n.name}`);
		let o;
		switch (n.type || 'object') {
			case 'object': o = new THREE.Object3D(); break;
			case 'bone': o = new THREE.Bone(); break;
			case 'skinnedMesh': o = new THREE.SkinnedMesh(new THREE.BufferGeometry()); break;
			case 'light': o = new THREE.PointLight(0xffffff, n.intensity ?? 1); break;
			case 'camera': o = new THREE.PerspectiveCamera(n.fov ?? 50, 1, 0.1, 2000); break;
			case 'mesh': {
				const mat = new THREE.MeshBasicMaterial();
				if (n.color) mat.color.setRGB(...vecN(n.color, 3, `${n.name}.color`)); // linear, as given
				o = new THREE.Mesh(new THREE.BufferGeometry(), mat);
				break;
			}
			default: fail(`node ${n.name}: unknown type ${n.type}`);
		}
		if (n.visible !== undefined) o.visible = n.visible;
		o.name = n.name;
		if (n.position) o.position.fromArray(vecN(n.position, 3, `${n.name}.position`));
		const q = n.rotation || n.quaternion;
		if (q) o.quaternion.fromArray(vecN(q, 4, `${n.name}.rotation`));
		if (n.scale) o.scale.fromArray(vecN(n.scale, 3, `${n.name}.scale`));
		nodes.set(n.name, o);
	}
	for (const n of sc.nodes || []) {
		const o = nodes.get(n.name);
		if (n.parent === undefined || n.parent === null) root.add(o);
		else {
			const p = nodes.get(n.parent);
			if (!p) fail(`node ${n.name}: unknown parent ${n.parent}`);
			p.add(o);
		}
	}

	// ------------------------------------------------------------------- glTF
	// optional: a glTF model (path relative to the scenario file, opts.baseDir),
	// loaded with three's GLTFLoader; gltf.scene goes under the root after the nodes
	let G = null;
	if (sc.gltf !== undefined && sc.gltf !== null) {
		if (typeof sc.gltf !== 'string' || sc.gltf === '') fail('gltf: expected a path');
		G = await buildGltfScene(await loadGltf(resolve(opts.baseDir ?? process.cwd(), sc.gltf)));
		for (const name of nodes.keys())
			if (G.nodeIndex(name) !== undefined) fail(`node ${name}: name is taken by a glTF node`);
		root.add(G.scene);
		// GLTFLoader built the cubicspline interpolants itself; only the mirror mode
		// (ORACLE_CUBIC=mirror, run_all --check) swaps in the verbatim copy
		if (cubic.source === 'mirror')
			for (const c of G.clips) for (const t of c.tracks)
				if (t.createInterpolant.isInterpolantFactoryMethodGLTFCubicSpline) t.createInterpolant = cubic.factory;
	}
	const nodeOf = (name) => nodes.get(name) ?? (G ? G.node(name) : undefined);
	root.updateMatrixWorld(true);

	// ------------------------------------------------------------------ skins
	const skins = new Map();
	for (const s of sc.skins || []) {
		if (!NAME_RE.test(s.name || '')) fail(`skin name ${JSON.stringify(s.name)}`);
		if (G && /^[0-9]+$/.test(s.name)) fail(`skin ${s.name}: all-digit skin names are glTF skin indices`);
		const mesh = nodes.get(s.mesh);
		if (!mesh || !mesh.isSkinnedMesh) fail(`skin ${s.name}: mesh ${s.mesh} must be a node of type skinnedMesh`);
		const bones = s.bones.map((b) => {
			const o = nodes.get(b);
			if (!o) fail(`skin ${s.name}: unknown bone ${b}`);
			return o;
		});
		const nv = s.vertices.length / 3;
		if (!Number.isInteger(nv) || s.skinIndex.length !== nv * 4 || s.skinWeight.length !== nv * 4)
			fail(`skin ${s.name}: vertices/skinIndex/skinWeight sizes disagree`);
		const g = mesh.geometry;
		g.setAttribute('position', new THREE.Float32BufferAttribute(s.vertices, 3));
		g.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(s.skinIndex, 4));
		g.setAttribute('skinWeight', new THREE.Float32BufferAttribute(s.skinWeight, 4));
		if (s.normalizeSkinWeights) mesh.normalizeSkinWeights();
		const inverses = s.boneInverses ? s.boneInverses.map((m) => new THREE.Matrix4().fromArray(vecN(m, 16, 'boneInverse'))) : [];
		root.updateMatrixWorld(true);
		const skeleton = new THREE.Skeleton(bones, inverses);
		if (s.bindMatrix) mesh.bind(skeleton, new THREE.Matrix4().fromArray(vecN(s.bindMatrix, 16, 'bindMatrix')));
		else mesh.bind(skeleton); // updates mesh world matrix, recomputes inverses, bindMatrix = mesh.matrixWorld
		if (s.bindMode === 'detached') mesh.bindMode = THREE.DetachedBindMode;
		skins.set(s.name, { mesh, skeleton });
	}

	// ------------------------------------------------------------------ clips
	const clips = new Map();
	const curveHolder = new THREE.Object3D();
	curveHolder.name = CURVE_HOLDER;
	if (sc.oroya && sc.oroya.curves) root.add(curveHolder);
	for (const c of sc.clips || []) {
		if (!NAME_RE.test(c.name || '')) fail(`clip name ${JSON.stringify(c.name)}`);
		if (G && G.clip(c.name)) fail(`clip ${c.name}: name is taken by a glTF animation`);
		const tracks = (c.tracks || []).map((t, i) => {
			const what = `clip ${c.name} track ${i}`;
			if (!nodes.has(t.node)) fail(`${what}: unknown node ${t.node}`);
			const prop = PROPS[t.property];
			if (!prop) fail(`${what}: unknown property ${t.property}`);
			const interp = t.interpolation || (prop.bool ? 'step' : 'linear');
			const isCubic = interp === 'cubicspline';
			if (!isCubic && !(interp in INTERP)) fail(`${what}: unknown interpolation ${interp}`);
			const perKey = prop.size * (isCubic ? 3 : 1);
			if (!t.times.length || t.values.length !== t.times.length * perKey)
				fail(`${what}: values must hold ${perKey} numbers per key`);
			const name = `${t.node}.${prop.path}`;
			let track;
			if (prop.bool) {
				track = new prop.Track(name, t.times, t.values.map((v) => !!v), INTERP[interp]);
			} else if (isCubic) {
				// as GLTFLoader: INTERPOLATION.CUBICSPLINE === undefined -> default interpolation, then override
				track = new prop.Track(name, t.times, t.values, undefined);
				track.createInterpolant = cubic.factory;
			} else {
				track = new prop.Track(name, t.times, t.values, INTERP[interp]);
			}
			return track;
		});
		for (const cv of (sc.oroya && sc.oroya.curves && sc.oroya.curves[c.name]) || []) {
			const interp = cv.interpolation || 'linear';
			const name = `${CURVE_HOLDER}.${cv.name}`;
			if (!NAME_RE.test(cv.name || '')) fail(`clip ${c.name}: curve name ${JSON.stringify(cv.name)}`);
			curveHolder[cv.name] = 0;
			if (interp === 'cubicspline') {
				const track = new THREE.NumberKeyframeTrack(name, cv.times, cv.values, undefined);
				track.createInterpolant = cubic.factory;
				tracks.push(track);
			} else {
				if (!(interp in INTERP)) fail(`clip ${c.name} curve ${cv.name}: unknown interpolation ${interp}`);
				tracks.push(new THREE.NumberKeyframeTrack(name, cv.times, cv.values, INTERP[interp]));
			}
		}
		const duration = c.duration === undefined || c.duration === null ? -1 : num(c.duration, `clip ${c.name} duration`);
		const mode = BLEND[c.blendMode || 'normal'];
		if (mode === undefined) fail(`clip ${c.name}: unknown blendMode ${c.blendMode}`);
		clips.set(c.name, new THREE.AnimationClip(c.name, duration, tracks, mode));
	}
	// scenario clips, then glTF clips (docs/scenario.md: glTF scenarios)
	const getClip = (name) => clips.get(name) ?? (G ? G.clip(name) : undefined);
	const hasClip = (name) => getClip(name) !== undefined;
	const makeAdditive = (clipName, a) => {
		const clip = getClip(clipName);
		if (!clip) fail(`makeClipAdditive: unknown clip ${clipName}`);
		const ref = a.referenceClip ? getClip(a.referenceClip) : clip;
		if (!ref) fail(`makeClipAdditive: unknown referenceClip ${a.referenceClip}`);
		THREE.AnimationUtils.makeClipAdditive(clip, a.referenceFrame ?? 0, ref, a.fps ?? 30);
	};
	for (const c of sc.clips || []) if (c.makeAdditive) makeAdditive(c.name, c.makeAdditive);
	if (G) {
		// a track binds to the first object of that name under the root: it must be the only one
		const bad = ambiguousTrackTargets(root, [...clips.values(), ...G.clips]);
		if (bad.length) fail(`track targets not unique under the root: ${bad.join(', ')}`);
	}

	// ---------------------------------------------------------------- actions
	const mixer = new THREE.AnimationMixer(root);
	if (sc.mixerTimeScale !== undefined) mixer.timeScale = num(sc.mixerTimeScale, 'mixerTimeScale');
	const actionDecl = new Map();
	for (const a of sc.actions || []) {
		if (!NAME_RE.test(a.name || '')) fail(`action name ${JSON.stringify(a.name)}`);
		if (!hasClip(a.clip)) fail(`action ${a.name}: unknown clip ${a.clip}`);
		if (a.blendMode && BLEND[a.blendMode] === undefined) fail(`action ${a.name}: unknown blendMode`);
		if (a.cloneClip !== undefined && typeof a.cloneClip !== 'boolean') fail(`action ${a.name}: cloneClip must be a boolean`);
		actionDecl.set(a.name, a);
	}
	const actions = new Map(); // name -> AnimationAction (created lazily, on first reference)
	const actionNames = new Map(); // AnimationAction -> name
	const action = (name) => {
		if (actions.has(name)) return actions.get(name);
		let act;
		const d = actionDecl.get(name);
		if (d) {
			// three keeps one action per (clip, root, blendMode); cloneClip gives this action
			// its own copy of the clip (same tracks and interpolant factories, new uuid)
			const clip = d.cloneClip ? getClip(d.clip).clone() : getClip(d.clip);
			act = mixer.clipAction(clip, undefined, d.blendMode ? BLEND[d.blendMode] : undefined);
		} else if (hasClip(name)) act = mixer.clipAction(getClip(name));
		else fail(`unknown action/clip ${JSON.stringify(name)}`);
		if (actionNames.has(act)) fail(`actions ${actionNames.get(act)} and ${name} resolve to the same three action`);
		actions.set(name, act);
		actionNames.set(act, name);
		return act;
	};
	const actionOf = (op) => action(op.action ?? op.clip ?? fail(`op ${op.do}: needs "action"`));

	let frameEvents = [];
	mixer.addEventListener('finished', (e) =>
		frameEvents.push({ type: 'finished', action: actionNames.get(e.action), direction: e.direction }));
	mixer.addEventListener('loop', (e) =>
		frameEvents.push({ type: 'loop', action: actionNames.get(e.action), loopDelta: e.loopDelta }));

	// ------------------------------------------------------------------ script
	const ACTION_FIELDS = new Set(['weight', 'timeScale', 'time', 'enabled', 'paused', 'clampWhenFinished',
		'zeroSlopeAtStart', 'zeroSlopeAtEnd', 'repetitions', 'loop', 'blendMode']);
	const ops = {
		play: (op) => actionOf(op).play(),
		stop: (op) => actionOf(op).stop(),
		reset: (op) => actionOf(op).reset(),
		fadeIn: (op) => actionOf(op).fadeIn(num(op.duration, 'fadeIn.duration')),
		fadeOut: (op) => actionOf(op).fadeOut(num(op.duration, 'fadeOut.duration')),
		crossFadeTo: (op) => action(op.from).crossFadeTo(action(op.to), num(op.duration, 'crossFadeTo.duration'), op.warp === true),
		crossFadeFrom: (op) => action(op.to).crossFadeFrom(action(op.from), num(op.duration, 'crossFadeFrom.duration'), op.warp === true),
		setEffectiveWeight: (op) => actionOf(op).setEffectiveWeight(num(op.weight, 'weight')),
		setEffectiveTimeScale: (op) => actionOf(op).setEffectiveTimeScale(num(op.timeScale, 'timeScale')),
		setDuration: (op) => actionOf(op).setDuration(num(op.duration, 'duration')),
		setLoop: (op) => {
			const m = LOOP[op.mode];
			if (m === undefined) fail(`setLoop: unknown mode ${op.mode}`);
			actionOf(op).setLoop(m, reps(op.repetitions));
		},
		clampWhenFinished: (op) => { actionOf(op).clampWhenFinished = op.value !== false; },
		startAt: (op) => actionOf(op).startAt(num(op.time, 'startAt.time')),
		syncWith: (op) => actionOf(op).syncWith(action(op.with)),
		halt: (op) => actionOf(op).halt(num(op.duration, 'halt.duration')),
		warp: (op) => actionOf(op).warp(num(op.startTimeScale, 'warp.startTimeScale'), num(op.endTimeScale, 'warp.endTimeScale'), num(op.duration, 'warp.duration')),
		stopFading: (op) => actionOf(op).stopFading(),
		stopWarping: (op) => actionOf(op).stopWarping(),
		setTime: (op) => {
			// with "action": sets action.time; without: mixer.setTime(time), which zeroes
			// mixer.time and every action's time and then calls mixer.update(time)
			if (op.action ?? op.clip) actionOf(op).time = num(op.time, 'setTime.time');
			else mixer.setTime(num(op.time, 'setTime.time'));
		},
		set: (op) => {
			if (!ACTION_FIELDS.has(op.field)) fail(`set: unsupported field ${op.field}`);
			let v = op.value;
			if (op.field === 'loop') v = LOOP[v];
			if (op.field === 'blendMode') v = BLEND[v];
			if (op.field === 'repetitions') v = reps(v);
			if (v === undefined) fail(`set ${op.field}: bad value`);
			actionOf(op)[op.field] = v;
		},
		setMixerTimeScale: (op) => { mixer.timeScale = num(op.timeScale, 'timeScale'); },
		stopAllAction: () => mixer.stopAllAction(),
		makeClipAdditive: (op) => makeAdditive(op.clip, op),
		setNode: (op) => {
			const o = nodeOf(op.node) || fail(`setNode: unknown node ${op.node}`);
			if (op.position) o.position.fromArray(vecN(op.position, 3, 'position'));
			const q = op.rotation || op.quaternion;
			if (q) o.quaternion.fromArray(vecN(q, 4, 'rotation'));
			if (op.scale) o.scale.fromArray(vecN(op.scale, 3, 'scale'));
		},
	};
	const script = (sc.script || []).map((op, i) => {
		if (!(op.do in ops)) fail(`script[${i}]: unknown op ${JSON.stringify(op.do)}`);
		if (op.at !== undefined && op.step !== undefined) fail(`script[${i}]: give "at" or "step", not both`);
		return { op, done: false };
	});

	// ------------------------------------------------------------------- steps
	let dts;
	const st = sc.steps;
	if (Array.isArray(st)) dts = st.map((d, i) => num(d, `steps[${i}]`));
	else if (st && typeof st === 'object') {
		const dt = st.fps !== undefined ? 1 / num(st.fps, 'steps.fps') : num(st.dt, 'steps.dt');
		dts = new Array(num(st.count, 'steps.count')).fill(dt);
	} else fail('steps: required');

	// ------------------------------------------------------------------ record
	const recorders = (sc.record || []).map((key) => [key, makeRecorder(key)]);
	function makeRecorder(key) {
		if (key === 'mixer.time') return () => mixer.time;
		if (key === 'mixer.timeScale') return () => mixer.timeScale;
		if (key === 'mixer.activeActions')
			return () => mixer._actions.slice(0, mixer._nActiveActions).map((a) => actionNames.get(a) ?? null);
		if (key === 'mixer.stats')
			return () => ({ actions: mixer.stats.actions.inUse, bindings: mixer.stats.bindings.inUse,
				controlInterpolants: mixer.stats.controlInterpolants.inUse });
		if (key.startsWith('curve:')) {
			const name = key.slice(6);
			return () => curveHolder[name] ?? 0;
		}
		const dot = key.lastIndexOf('.');
		if (dot < 0) fail(`record key ${key}: expected <target>.<field>`);
		const target = key.slice(0, dot), field = key.slice(dot + 1);
		if (target.startsWith('action:')) {
			const name = target.slice(7);
			if (!actionDecl.has(name) && !hasClip(name)) fail(`record key ${key}: unknown action/clip ${name}`);
			// an action is created (mixer.clipAction) when the script first names it; until
			// then its fields record as null, so recording never changes what three does
			const get = () => actions.get(name);
			const g = {
				effectiveWeight: () => get().getEffectiveWeight(),
				weight: () => get().weight,
				time: () => get().time,
				effectiveTimeScale: () => get().getEffectiveTimeScale(),
				timeScale: () => get().timeScale,
				enabled: () => get().enabled,
				paused: () => get().paused,
				running: () => get().isRunning(),
				scheduled: () => get().isScheduled(),
				loopCount: () => get()._loopCount,
				repetitions: () => get().repetitions,
				fading: () => get()._weightInterpolant !== null,
				warping: () => get()._timeScaleInterpolant !== null,
			}[field];
			if (!g) fail(`record key ${key}: unknown action field`);
			return () => (actions.has(name) ? g() : null);
		}
		if (target.startsWith('skin:')) {
			const gs = skins.has(target.slice(5)) || !G ? undefined : G.skeleton(target.slice(5));
			if (gs) {
				// glTF skin by index: Skeleton built by GLTFLoader (boneInverses = inverseBindMatrices)
				if (field === 'boneMatrices') return () => Array.from(gs.boneMatrices);
				fail(`record key ${key}: glTF skins record boneMatrices only`);
			}
			const s = skins.get(target.slice(5)) || fail(`record key ${key}: unknown skin`);
			if (field === 'boneMatrices') return () => Array.from(s.skeleton.boneMatrices);
			if (field === 'vertices')
				return () => {
					const v = new THREE.Vector3(), out = [];
					const n = s.mesh.geometry.getAttribute('position').count;
					for (let i = 0; i < n; i++) {
						s.mesh.getVertexPosition(i, v);
						out.push(v.x, v.y, v.z);
					}
					return out;
				};
			fail(`record key ${key}: unknown skin field`);
		}
		const o = nodeOf(target) || fail(`record key ${key}: unknown node ${target}`);
		if (field === 'weights') {
			const m = (G && G.morphMesh(target)) || fail(`record key ${key}: not a glTF node with morph targets`);
			return () => Array.from(m.morphTargetInfluences);
		}
		const f = {
			position: () => o.position.toArray(),
			translation: () => o.position.toArray(),
			quaternion: () => o.quaternion.toArray(),
			rotation: () => o.quaternion.toArray(),
			scale: () => o.scale.toArray(),
			matrix: () => o.matrix.toArray(),
			matrixWorld: () => o.matrixWorld.toArray(),
			intensity: o.isLight ? () => o.intensity : undefined,
			fov: o.isPerspectiveCamera ? () => o.fov : undefined,
			color: o.material && o.material.color ? () => o.material.color.toArray() : undefined,
			visible: () => o.visible,
		}[field];
		if (!f) fail(`record key ${key}: unknown node field`);
		return f;
	}

	// -------------------------------------------------------------------- run
	const frames = [];
	let clock = 0;
	for (let i = 0; i < dts.length; i++) {
		frameEvents = [];
		for (const s of script) {
			if (s.done) continue;
			const due = s.op.step !== undefined ? i >= s.op.step : clock >= (s.op.at ?? 0) - EPS_AT;
			if (!due) continue;
			s.done = true;
			ops[s.op.do](s.op);
		}
		mixer.update(dts[i]);
		clock += dts[i];
		root.updateMatrixWorld();
		for (const s of skins.values()) s.skeleton.update();
		if (G) for (const sk of G.skeletons) sk.update();
		const values = {};
		for (const [k, f] of recorders) values[k] = f();
		const fr = { step: i, t: clock, mixerTime: mixer.time, values };
		if (frameEvents.length) fr.events = frameEvents;
		frames.push(fr);
	}
	const pending = script.filter((s) => !s.done).length;
	let clipDump;
	if (sc.dumpClips) {
		// final state of every clip (after makeClipAdditive etc.); times/values are three's Float32Arrays
		clipDump = {};
		for (const [name, c] of clips) {
			clipDump[name] = {
				duration: c.duration,
				blendMode: c.blendMode === THREE.AdditiveAnimationBlendMode ? 'additive' : 'normal',
				tracks: c.tracks.map((t) => ({ name: t.name, times: Array.from(t.times), values: Array.from(t.values) })),
			};
		}
	}
	const hasCubic = [...clips.values(), ...(G ? G.clips : [])].some((c) =>
		c.tracks.some((t) => t.createInterpolant && t.createInterpolant.isInterpolantFactoryMethodGLTFCubicSpline === true));
	return { pending, frames, clipDump, hasCubic };
}

export function formatResult(sc, res, meta) {
	// one frame per line: small diffs stay readable
	const head = {
		format: FORMAT_VERSION,
		threeVersion: meta.threeVersion,
		cubicSplineSource: meta.cubicSource,
		scenario: sc.name ?? null,
		unexecutedOps: res.pending,
	};
	if (res.clipDump) head.clips = res.clipDump;
	const h = JSON.stringify(head);
	const body = res.frames.map((f) => JSON.stringify(f)).join(',\n');
	return h.slice(0, -1) + ',"frames":[\n' + body + '\n]}\n';
}

async function main() {
	const args = process.argv.slice(2);
	// --base DIR: folder that a scenario read from stdin resolves its "gltf" path against (default: cwd)
	const bi = args.indexOf('--base');
	const baseArg = bi >= 0 ? args.splice(bi, 2)[1] : undefined;
	const file = args.find((a) => !a.startsWith('--'));
	const text = file && file !== '-' ? readFileSync(file, 'utf8') : readFileSync(0, 'utf8');
	const sc = JSON.parse(text);
	const cubic = await getCubicSplineFactory();
	try {
		const res = await runScenario(sc, { cubic, baseDir: file && file !== '-' ? dirname(resolve(file)) : baseArg ?? process.cwd() });
		process.stdout.write(formatResult(sc, res, { threeVersion: threeVersion(), cubicSource: cubic.source }));
	} catch (e) {
		if (e instanceof ScenarioError) {
			process.stderr.write(`oracle: scenario error: ${e.message}\n`);
			process.exit(2);
		}
		throw e;
	}
}

export { threeVersion, getCubicSplineFactory };

if (process.argv[1] && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(resolve(process.argv[1]))) await main();
