#!/usr/bin/env node
// Random differential of oroya's mixer against three.js 0.187 (a tool, not a test).
//
//   node tests/conformance/tools/random_scenarios.mjs [--seed S] [--count N] [--out DIR]
//        [--run build/oroya] [--gltf-share F] [--keep-all]
//
// Makes N seeded random scenarios in the format of docs/scenario.md (scenario i uses seed
// S + i, so one can be made again alone with --seed S+i --count 1): nodes (objects, a light,
// a camera, a mesh), clips with random tracks (position, quaternion, scale, intensity, fov,
// color, visible; step, linear, smooth and cubicspline; first keys after 0, explicit
// durations, single-key and zero-length clips), declared actions (additive, cloned clips),
// makeAdditive, and scripts over every op of the format (play, stop, reset, fades,
// cross-fades with and without warp, effective weight and time scale, loops with 0, 1, n and
// infinite repetitions, clampWhenFinished, startAt, syncWith, halt, warp, setTime of an
// action and of the mixer, set of every action field, the mixer's time scale, stopAllAction,
// makeClipAdditive, setNode) with update steps that are small, large, zero and irregular
// (as a list, or as the format's {"fps", "count"} and {"dt", "count"}), the format's
// aliases (translation, rotation, material.color, discrete) and initial `visible` values.
// A share of the scenarios (--gltf-share, default 0.3) play on a glTF model from
// tests/assets (skins, morph weights) with its own animations and random extra clips.
//
// Every scenario stays inside what oroya and three agree on: the documented deviations
// (docs/mixer.md) and oroya play's refusals are avoided (no negative dt, no zero-length clip in
// repeat or ping-pong, no clampWhenFinished on an action that may ping-pong, no
// makeClipAdditive of a clip whose action exists, of cubic-spline rotations, of glTF clips
// that share keys with another clip, or of multi-primitive weights against another clip),
// outside writes go to channels no clip animates, and key times are strictly increasing.
// Warps on an action whose time scale is 0 are not avoided: oroya refuses them (documented),
// which the summary counts as "oroyaRefused".
//
// Without --run it only writes DIR/rN.json. With --run it also runs each scenario through
// three.js (oracle/oracle.mjs, in process; `npm ci` in oracle/ first) and through
// `oroya play` twice: as it is (the pose kernel path, every joint of the scene a rig joint)
// and with OROYA_PLAY_NO_RIG=1 in the environment if the binary honours it (the property
// path). Scenarios whose results differ are kept in DIR with rN.expected.json (three),
// rN.kernel.json and rN.property.json, and a summary line per divergence (first frame and
// key) is printed; --keep-all keeps the agreeing ones too. A scenario oroya refuses is
// reported with its message. The summary line counts the "kernel" runs by the path their
// updates took (`oroya play --report-path`): all on the pose kernel, some, none.

import { mkdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const confDir = resolve(here, '..');
const assets = resolve(confDir, '..', 'assets');

const args = process.argv.slice(2);
const opt = (name, def) => {
	const i = args.indexOf(name);
	return i < 0 ? def : args[i + 1];
};
const seed0 = Number(opt('--seed', '1'));
const count = Number(opt('--count', '100'));
const outDir = resolve(opt('--out', '/tmp/oroya_random'));
const oroyaBin = opt('--run', null);
const gltfShare = Number(opt('--gltf-share', '0.3'));
const keepAll = args.includes('--keep-all');

function rng(seed) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const r = {
		next,
		int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
		pick: (xs) => xs[Math.floor(next() * xs.length)],
		chance: (p) => next() < p,
		range: (lo, hi) => lo + next() * (hi - lo),
		r3: (lo, hi) => Math.round((lo + next() * (hi - lo)) * 1000) / 1000,
	};
	return r;
}

// glTF models: path under tests/assets, animated nodes and their channels, morph nodes
const MODELS = [
	{ file: 'RiggedSimple/glTF-Binary/RiggedSimple.glb', skins: 1,
	  rec: ['Bone.001.position', 'Bone.001.quaternion', 'Bone.001.scale', 'Bone.001.matrixWorld'] },
	{ file: 'CesiumMan/glTF/CesiumMan.gltf', skins: 1,
	  rec: ['Skeleton_torso_joint_1.position', 'Skeleton_torso_joint_1.quaternion', 'leg_joint_L_5.matrixWorld', 'Skeleton_arm_joint_R__3_.quaternion'] },
	{ file: 'AnimatedMorphCube/glTF/AnimatedMorphCube.gltf', skins: 0, rec: ['AnimatedMorphCube.weights'] },
	{ file: 'SimpleSkin/glTF/SimpleSkin.gltf', skins: 1, rec: ['node_2.quaternion', 'node_2.matrixWorld'] },
	{ file: 'BoxAnimated/glTF/BoxAnimated.gltf', skins: 0, rec: ['node_0.position', 'node_2.quaternion', 'node_2.matrixWorld'] },
	{ file: 'InterpolationTest/glTF/InterpolationTest.gltf', skins: 0, clips: 9, cubicRotClips: ['animation_4'], sharedClips: ['animation_0', 'animation_1'],
	  rec: ['Cube.scale', 'Cube.001.scale', 'Cube.002.scale', 'Cube.003.quaternion', 'Cube.004.quaternion', 'Cube.005.quaternion',
		'Cube.006.position', 'Cube.008.position', 'Cube.009.position'] },
	{ file: 'RiggedFigure/glTF/RiggedFigure.gltf', skins: 1, rec: ['torso_joint_2.quaternion', 'arm_joint_L_3.matrixWorld'] },
	{ file: 'CesiumMilkTruck/glTF/CesiumMilkTruck.gltf', skins: 0, rec: ['Wheels.quaternion', 'Wheels.001.matrixWorld'] },
	{ file: 'MorphStressTest/glTF-Binary/MorphStressTest.glb', skins: 0, clips: 3, multiPrimWeights: true, rec: ['Main.weights'] },
	{ file: 'SimpleMorph/glTF/SimpleMorph.gltf', skins: 0, rec: ['node_0.weights'] },
	{ file: 'AnimatedTriangle/glTF/AnimatedTriangle.gltf', skins: 0, rec: ['node_0.quaternion'] },
];

function quat(r) {
	for (;;) {
		const q = [r.range(-1, 1), r.range(-1, 1), r.range(-1, 1), r.range(-1, 1)];
		const n = Math.hypot(...q);
		if (n > 0.2 && n < 1) return q.map((x) => Math.round((x / n) * 1e6) / 1e6);
	}
}

function makeTimes(r, n) {
	const t = [];
	let x = r.chance(0.75) ? 0 : r.pick([0.1, 0.25, r.r3(0.01, 1)]);
	for (let i = 0; i < n; i++) {
		t.push(x);
		x = Math.round((x + r.pick([0.1, 0.25, 0.5, 1 / 3, r.range(0.01, 1.2)])) * 1e4) / 1e4;
	}
	return t;
}

// the format's property aliases (docs/scenario.md), and back to the names the checks use
const ALIASES = { position: 'translation', quaternion: 'rotation', color: 'material.color' };
const canon = (p) => Object.keys(ALIASES).find((k) => ALIASES[k] === p) ?? p;
const SIZES = { position: 3, quaternion: 4, scale: 3, intensity: 1, fov: 1, color: 3, visible: 1, weights: 0 };

function makeValue(r, prop, nw) {
	switch (prop) {
		case 'position': return [r.r3(-2, 2), r.r3(-2, 2), r.r3(-2, 2)];
		case 'scale': return [r.r3(0.2, 2), r.r3(0.2, 2), r.r3(0.2, 2)];
		case 'quaternion': return quat(r);
		case 'intensity': return [r.r3(0, 5)];
		case 'fov': return [r.r3(20, 90)];
		case 'color': return [r.r3(0, 1), r.r3(0, 1), r.r3(0, 1)];
		case 'visible': return [r.chance(0.5) ? 1 : 0];
		case 'weights': return Array.from({ length: nw }, () => r.r3(0, 1));
	}
	throw new Error(prop);
}

function makeTrack(r, node, prop, opts = {}) {
	const n = r.chance(0.1) ? 1 : r.int(2, 6);
	const times = opts.zeroLength ? [0] : makeTimes(r, n);
	let interp;
	if (prop === 'visible') interp = 'step';
	else interp = r.pick(['step', 'linear', 'linear', 'smooth', 'cubicspline']);
	const values = [];
	for (let i = 0; i < times.length; i++) {
		const v = makeValue(r, prop, opts.nw);
		if (interp === 'cubicspline') {
			const tan = () => v.map(() => r.r3(-1, 1));
			values.push(...tan(), ...v, ...tan());
		} else values.push(...v);
	}
	if (prop === 'visible') return { node, property: prop, interpolation: interp, times, values: values.map((x) => x === 1) };
	// the format's aliases, now and then
	if (interp === 'step' && r.chance(0.2)) interp = 'discrete';
	if (ALIASES[prop] && r.chance(0.2)) prop = ALIASES[prop];
	return { node, property: prop, interpolation: interp, times, values };
}

function generate(seed) {
	const r = rng(seed);
	const sc = { name: `r${seed}`, description: `random_scenarios.mjs --seed ${seed} --count 1` };
	const targets = []; // {node, props}
	let model = null;
	if (r.chance(gltfShare)) {
		model = r.pick(MODELS);
		sc.gltf = join(assets, model.file);
	}
	const nodes = [];
	const nObj = r.int(1, 4);
	for (let i = 0; i < nObj; i++) {
		const n = { name: `n${i}`, parent: i > 0 && r.chance(0.5) ? `n${r.int(0, i - 1)}` : null };
		if (r.chance(0.3)) n.type = 'bone';
		if (r.chance(0.3)) n.position = [r.r3(-1, 1), r.r3(-1, 1), r.r3(-1, 1)];
		if (r.chance(0.3)) n.rotation = quat(r);
		if (r.chance(0.2)) n.scale = [r.r3(0.5, 2), r.r3(0.5, 2), r.r3(0.5, 2)];
		if (r.chance(0.1)) n.visible = r.chance(0.5);
		nodes.push(n);
		targets.push({ node: n.name, props: ['position', 'quaternion', 'scale', 'visible'] });
	}
	if (r.chance(0.3)) {
		nodes.push({ name: 'lamp', type: 'light', intensity: r.r3(0, 3) });
		targets.push({ node: 'lamp', props: ['intensity', 'position'] });
	}
	if (r.chance(0.2)) {
		nodes.push({ name: 'cam', type: 'camera', fov: 45 });
		targets.push({ node: 'cam', props: ['fov', 'quaternion'] });
	}
	if (r.chance(0.2)) {
		nodes.push({ name: 'box', type: 'mesh', color: [1, 0.5, 0.25] });
		targets.push({ node: 'box', props: ['color', 'scale'] });
	}
	// a scenario skin over some of the objects, its mesh animated too (bind modes differ there)
	if (r.chance(0.3)) {
		const bones = nodes.filter((n) => /^n\d$/.test(n.name)).map((n) => n.name);
		for (let i = bones.length - 1; i > 0; i--) {
			const j = r.int(0, i);
			[bones[i], bones[j]] = [bones[j], bones[i]];
		}
		const mesh = { name: 'skinned', type: 'skinnedMesh', parent: r.chance(0.5) ? null : bones[0] };
		if (r.chance(0.5)) mesh.position = [r.r3(-1, 1), r.r3(-1, 1), r.r3(-1, 1)];
		nodes.push(mesh);
		targets.push({ node: 'skinned', props: ['position', 'quaternion', 'scale'] });
		const nv = r.int(1, 4);
		const skin = { name: 'sk', mesh: 'skinned', bones, vertices: [], skinIndex: [], skinWeight: [] };
		for (let v = 0; v < nv; v++) {
			skin.vertices.push(r.r3(-1, 1), r.r3(-1, 1), r.r3(-1, 1));
			for (let k = 0; k < 4; k++) {
				skin.skinIndex.push(r.int(0, bones.length - 1));
				skin.skinWeight.push(k < 2 || r.chance(0.3) ? r.r3(0, 1) : 0);
			}
		}
		if (r.chance(0.3)) skin.normalizeSkinWeights = true;
		if (r.chance(0.3)) skin.bindMode = 'detached';
		if (r.chance(0.2)) skin.bindMatrix = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, r.r3(-1, 1), r.r3(-1, 1), 0, 1];
		if (r.chance(0.3)) {
			// explicit inverse bind matrices: a rotation about z, a scale and a translation each
			skin.boneInverses = bones.map(() => {
				const a = r.range(-3, 3), k = r.r3(0.5, 2), c = Math.cos(a) * k, sn = Math.sin(a) * k;
				return [c, sn, 0, 0, -sn, c, 0, 0, 0, 0, k, 0, r.r3(-1, 1), r.r3(-1, 1), r.r3(-1, 1), 1];
			});
		}
		sc.skins = [skin];
	}
	if (nodes.length) sc.nodes = nodes;

	// clips
	const clips = [];
	const churn = r.chance(0.25); // many actions started and stopped: the active order permutes
	const nClips = r.int(1, churn ? 7 : 4);
	for (let c = 0; c < nClips; c++) {
		const zeroLength = r.chance(0.08);
		const clip = { name: `c${c}`, tracks: [] };
		const used = new Set();
		const nt = r.int(1, 4);
		for (let k = 0; k < nt; k++) {
			const tg = r.pick(targets);
			const prop = r.pick(tg.props);
			const key = `${tg.node}.${prop}`;
			// two tracks on one channel of a clip: rare (three sums them; oroya's kernel falls back)
			if (used.has(key) && !r.chance(0.1)) continue;
			used.add(key);
			clip.tracks.push(makeTrack(r, tg.node, prop, { zeroLength, nw: tg.nw }));
		}
		if (!clip.tracks.length) clip.tracks.push(makeTrack(r, targets[0].node, targets[0].props[0], { zeroLength, nw: targets[0].nw }));
		if (zeroLength) clip.duration = r.chance(0.5) ? 0 : null;
		else if (r.chance(0.2)) clip.duration = r.pick([0.5, 1, 2.5, r.r3(0.2, 3), 0.001, 0.7, 1.2]);
		if (!zeroLength && r.chance(0.15)) clip.blendMode = 'additive';
		clips.push(clip);
	}
	// makeAdditive at set-up; not on clips with cubic-spline rotations (deviation 3: oroya
	// transforms their tangents, three does not)
	const cubicRot = (c) => c.tracks.some((t) => canon(t.property) === 'quaternion' && t.interpolation === 'cubicspline');
	for (const clip of clips) {
		if (clip.blendMode !== 'additive' && !cubicRot(clip) && r.chance(0.12)) {
			clip.makeAdditive = { referenceFrame: r.pick([0, 3, 10]), fps: r.pick([30, 24]) };
			if (r.chance(0.3)) clip.makeAdditive.referenceClip = r.pick(clips).name;
			clip.blendMode = 'additive'; // makeClipAdditive makes the clip additive
		}
	}
	sc.clips = clips;
	// curves (an oroya extension that the reference runner plays as three number tracks)
	if (r.chance(0.35)) {
		const curves = {};
		for (const clip of clips) {
			if (!r.chance(0.6)) continue;
			const zero = clip.tracks.every((t) => t.times.length === 1 && t.times[0] === 0);
			const list = [];
			for (const cn of ['k0', 'k1', 'k2']) {
				if (!r.chance(0.5)) continue;
				const t = makeTrack(r, null, 'intensity', { zeroLength: zero });
				if (!zero && clip.duration === 0) continue;
				list.push({ name: cn, interpolation: t.interpolation, times: t.times, values: t.values.map((v) => v - 2) });
			}
			if (list.length) curves[clip.name] = list;
		}
		if (Object.keys(curves).length) sc.oroya = { curves };
	}
	const zeroLen = new Set(clips.filter((c) => c.duration === 0 || (c.duration !== undefined && c.duration !== null ? false : c.tracks.every((t) => t.times[t.times.length - 1] === 0))).map((c) => c.name));

	// actions
	const actionNames = clips.map((c) => c.name);
	const clipOf = new Map(clips.map((c) => [c.name, c.name]));
	const decl = [];
	if (model) {
		for (let i = 0; i < (model.clips ?? 1); i++) {
			actionNames.push(`animation_${i}`);
			clipOf.set(`animation_${i}`, `animation_${i}`);
		}
	}
	const nDecl = r.int(0, churn ? 5 : 2);
	for (let i = 0; i < nDecl; i++) {
		const c = r.pick([...clipOf.values()]);
		const d = { name: `a${i}`, clip: c };
		if (r.chance(0.5)) d.blendMode = r.pick(['additive', 'normal']);
		else d.cloneClip = true;
		// three keeps one action per (clip, root, blendMode): a declared action without a
		// clone must not coincide with the clip's own action (or another declared one)
		if (!d.cloneClip) {
			const mode = d.blendMode;
			const clipMode = clips.find((x) => x.name === c)?.blendMode ?? 'normal';
			if (mode === clipMode || decl.some((o) => !o.cloneClip && o.clip === c && o.blendMode === mode)) {
				d.cloneClip = true;
			}
		}
		decl.push(d);
		actionNames.push(d.name);
		clipOf.set(d.name, c);
	}
	if (decl.length) sc.actions = decl;

	// per action: ping-pong or clamp, never both (deviation 2)
	const mayPing = new Map(actionNames.map((a) => [a, r.chance(0.5)]));
	const isZero = (a) => zeroLen.has(clipOf.get(a));
	const named = new Set(); // actions named by the script so far (created)
	const clipsWithAction = new Set();

	const steps = [];
	const nSteps = r.int(20, r.pick([60, 150]));
	const dtKind = r.pick(['fps60', 'fps30', 'mixed', 'mixed', 'dt']);
	for (let i = 0; i < nSteps; i++) {
		let dt;
		if (dtKind === 'fps60') dt = 1 / 60;
		else if (dtKind === 'fps30') dt = 1 / 30;
		else if (dtKind === 'dt') dt = 0.015625;
		else dt = r.pick([1 / 60, 1 / 30, 0, 0.1, 0.25, 0.5, 1.7, r.range(0, 0.2), r.range(0.5, 4), 1 / 60, 1 / 30, 1e-7, 31.25, r.range(10, 500)]);
		steps.push(dt);
	}
	// the object forms of the format: the same dts ({"fps": F} is dt = 1 / F as a double)
	if (dtKind === 'fps60' && r.chance(0.5)) sc.steps = { fps: 60, count: nSteps };
	else if (dtKind === 'fps30' && r.chance(0.5)) sc.steps = { fps: 30, count: nSteps };
	else if (dtKind === 'dt' && r.chance(0.5)) sc.steps = { dt: 0.015625, count: nSteps };
	else sc.steps = steps;
	if (r.chance(0.15)) sc.mixerTimeScale = r.pick([0.5, 2, 0, -1]);

	const script = [];
	const nonClone = (a) => !decl.some((d) => d.name === a && d.cloneClip);
	const canSetBlend = (a) => !nonClone(a) || !actionNames.some((b) => b !== a && nonClone(b) && clipOf.get(b) === clipOf.get(a));
	const act = () => r.pick(actionNames);
	const name = (a) => { named.add(a); clipsWithAction.add(clipOf.get(a)); if (!isZero(a) || zeroLoopSet.has(a)) return a; return a; };
	const zeroLoopSet = new Set();
	const prelude = (a, at) => {
		// a zero-length clip's action plays LOOP_ONCE only (deviation 4)
		if (isZero(a) && !zeroLoopSet.has(a)) {
			zeroLoopSet.add(a);
			script.push({ ...at, do: 'setLoop', action: a, mode: 'once', repetitions: r.pick([1, 0, 3]) });
		}
		named.add(a);
		clipsWithAction.add(clipOf.get(a));
	};
	const nOps = churn ? r.int(40, 90) : r.int(2, r.pick([12, 25, 45]));
	const stepsAt = Array.from({ length: nOps }, () => (r.chance(0.4) ? 0 : r.int(0, nSteps - 1))).sort((x, y) => x - y);
	for (const s of stepsAt) {
		const at = r.chance(0.8) ? { step: s } : { at: Math.round(steps.slice(0, s).reduce((x, y) => x + y, 0) * 1000) / 1000 };
		const a = act();
		const kind = churn && r.chance(0.7) ? r.pick(['play', 'play', 'stop', 'stop', 'fadeIn', 'fadeOut', 'crossFadeTo', 'reset', 'stopAllAction', 'setEffectiveWeight']) : r.pick([
			'play', 'play', 'play', 'play', 'stop', 'reset', 'fadeIn', 'fadeOut', 'crossFadeTo', 'crossFadeFrom',
			'setEffectiveWeight', 'setEffectiveTimeScale', 'setDuration', 'setLoop', 'setLoop', 'clampWhenFinished',
			'startAt', 'syncWith', 'halt', 'warp', 'stopFading', 'stopWarping', 'setTime', 'setTimeMixer', 'set', 'set',
			'set', 'setMixerTimeScale', 'stopAllAction', 'makeClipAdditive', 'setNode',
		]);
		const dur = () => r.pick([0, 0.1, 0.25, 0.5, 1, 1.3, r.r3(0, 2)]);
		const ts = () => r.pick([-1.5, -1, -0.5, 0.5, 1, 1, 2, 0, r.r3(-2, 3), 7.5, -13, 1e-3]);
		switch (kind) {
			case 'play': case 'stop': case 'reset': case 'stopFading': case 'stopWarping':
				prelude(a, at); script.push({ ...at, do: kind, action: a }); break;
			case 'fadeIn': case 'fadeOut':
				prelude(a, at); script.push({ ...at, do: kind, action: a, duration: dur() }); break;
			case 'crossFadeTo': case 'crossFadeFrom': {
				const b = act();
				prelude(a, at); prelude(b, at);
				script.push({ ...at, do: kind, from: kind === 'crossFadeTo' ? a : b, to: kind === 'crossFadeTo' ? b : a, duration: dur(), warp: !isZero(a) && !isZero(b) && r.chance(0.5) });
				break;
			}
			case 'setEffectiveWeight':
				prelude(a, at); script.push({ ...at, do: kind, action: a, weight: r.pick([0, 0.25, 0.5, 1, 1, 1.5, r.r3(0, 2), -0.5, 1e-4, 4]) }); break;
			case 'setEffectiveTimeScale':
				prelude(a, at); script.push({ ...at, do: kind, action: a, timeScale: ts() }); break;
			case 'setDuration':
				if (isZero(a)) break;
				prelude(a, at); script.push({ ...at, do: kind, action: a, duration: r.pick([0.5, 1, 2, r.r3(0.1, 3), -1]) }); break;
			case 'setLoop': {
				if (isZero(a)) break;
				const mode = mayPing.get(a) ? r.pick(['once', 'repeat', 'pingpong']) : r.pick(['once', 'repeat']);
				const op = { ...at, do: kind, action: a, mode };
				const rep = r.pick([0, 1, 2, 3, 'Infinity', null, undefined, 0.5, 1.5, 2.7]);
				if (rep !== undefined) op.repetitions = rep;
				prelude(a, at); script.push(op);
				break;
			}
			case 'clampWhenFinished':
				if (mayPing.get(a)) break;
				prelude(a, at); script.push({ ...at, do: kind, action: a, value: r.chance(0.8) }); break;
			case 'startAt':
				prelude(a, at); script.push({ ...at, do: kind, action: a, time: r.pick([r.r3(0, 3), r.r3(-1, 0), 50]) }); break;
			case 'syncWith': {
				const b = act();
				prelude(a, at); prelude(b, at); script.push({ ...at, do: kind, action: a, with: b }); break;
			}
			case 'halt':
				prelude(a, at); script.push({ ...at, do: kind, action: a, duration: r.pick([0.1, 0.5, 1, r.r3(0.01, 2)]) }); break;
			case 'warp':
				prelude(a, at);
				script.push({ ...at, do: kind, action: a, startTimeScale: ts(), endTimeScale: ts(), duration: r.pick([0.1, 0.5, 1, r.r3(0.01, 2)]) });
				break;
			case 'setTime':
				prelude(a, at); script.push({ ...at, do: kind, action: a, time: r.pick([0, 0.5, r.r3(-1, 4), 250.125, -3.3]) }); break;
			case 'setTimeMixer':
				script.push({ ...at, do: 'setTime', time: r.pick([0, 0.5, r.r3(0, 4), 100.01]) }); break;
			case 'set': {
				const field = r.pick(['weight', 'timeScale', 'time', 'enabled', 'paused', 'clampWhenFinished', 'zeroSlopeAtStart',
					'zeroSlopeAtEnd', 'repetitions', 'loop', 'blendMode']);
				let value;
				switch (field) {
					case 'weight': value = r.pick([0, 0.5, 1, 2, r.r3(0, 1.5), -1, 0.001]); break;
					case 'timeScale': value = ts(); break;
					case 'time': value = r.pick([0, r.r3(-1, 4), 1e3 + r.r3(0, 1), -37.5]); break;
					case 'enabled': case 'paused': case 'zeroSlopeAtStart': case 'zeroSlopeAtEnd': value = r.chance(0.5); break;
					case 'clampWhenFinished': if (mayPing.get(a)) value = false; else value = r.chance(0.7); break;
					case 'repetitions': value = r.pick([0, 1, 2, 5, 'Infinity', 0.25, 1.5, 3.5]); break;
					case 'loop':
						if (isZero(a)) value = 'once';
						else value = mayPing.get(a) ? r.pick(['once', 'repeat', 'pingpong']) : r.pick(['once', 'repeat']);
						break;
					case 'blendMode':
						// three finds an action by clip and blend mode: changing it must not make
						// a later clipAction of the same clip return this action
						if (!canSetBlend(a)) continue;
						value = r.pick(['normal', 'additive']);
						break;
				}
				prelude(a, at); script.push({ ...at, do: 'set', action: a, field, value });
				break;
			}
			case 'setMixerTimeScale':
				script.push({ ...at, do: kind, timeScale: r.pick([0, 0.5, 1, 2, -1, r.r3(-1, 2)]) }); break;
			case 'stopAllAction':
				script.push({ ...at, do: kind }); break;
			case 'makeClipAdditive': {
				// a scenario clip, or a glTF animation without cubic-spline rotations
				const mc = model ? Array.from({ length: model.clips ?? 1 }, (_, i) => `animation_${i}`)
					.filter((n) => !(model.cubicRotClips ?? []).includes(n) && !(model.sharedClips ?? []).includes(n))
					.map((n) => ({ name: n, tracks: [] })) : [];
				const c = r.pick([...clips, ...mc]);
				// refused by oroya once the clip has an action (three rewrites its keys in place)
				if (clipsWithAction.has(c.name) || [...clipOf.entries()].some(([x, y]) => y === c.name && named.has(x))) break;
				// three would give a declared additive action of the clip the clip's own action
				if (decl.some((d) => d.clip === c.name && !d.cloneClip)) break;
				if (cubicRot(c)) break;
				const op = { ...at, do: kind, clip: c.name, referenceFrame: r.pick([0, 2, 10]), fps: 30 };
				// oroya play refuses another reference for weights on a mesh of several primitives
				if (r.chance(0.3) && !(model?.multiPrimWeights && mc.includes(c))) op.referenceClip = r.pick([...clips, ...mc]).name;
				script.push(op);
				break;
			}
			case 'setNode': {
				const tg = r.pick(targets);
				if (!['position', 'quaternion', 'scale'].some((p) => tg.props.includes(p))) break;
				// only channels no clip animates: over an animated channel three and the kernel
				// may keep or overwrite the write by a last-bit difference (docs/mixer.md,
				// "Rewritten by rounding")
				const free = (p) => !clips.some((c) => c.tracks.some((t) => t.node === tg.node && canon(t.property) === p));
				const op = { ...at, do: kind, node: tg.node };
				if (free('position') && r.chance(0.6)) op.position = makeValue(r, 'position');
				if (free('quaternion') && r.chance(0.5)) op.rotation = quat(r);
				if (free('scale') && r.chance(0.3)) op.scale = makeValue(r, 'scale');
				if (Object.keys(op).length > 3) script.push(op);
				break;
			}
		}
	}
	sc.script = script;

	const record = ['mixer.time', 'mixer.timeScale', 'mixer.activeActions', 'mixer.stats'];
	if (sc.oroya) record.push('curve:k0', 'curve:k1', 'curve:k2');
	for (const n of nodes) if (!n.parent && r.chance(0.3)) record.push(`${n.name}.matrixWorld`);
	for (const tg of targets) {
		for (const p of tg.props) {
			if (p === 'quaternion') record.push(`${tg.node}.quaternion`);
			else record.push(`${tg.node}.${p}`);
		}
	}
	if (sc.skins) record.push('skin:sk.boneMatrices', 'skin:sk.vertices');
	if (model) {
		record.push(...model.rec);
		for (let s = 0; s < model.skins; s++) record.push(`skin:${s}.boneMatrices`);
	}
	for (const a of actionNames) {
		for (const f of ['effectiveWeight', 'weight', 'time', 'effectiveTimeScale', 'timeScale', 'enabled', 'paused', 'running',
			'scheduled', 'loopCount', 'repetitions', 'fading', 'warping'])
			record.push(`action:${a}.${f}`);
	}
	sc.record = record;
	if (r.chance(0.2)) sc.dumpClips = true;
	return sc;
}

// ------------------------------------------------------------------- comparison
const ATOL = 1e-5, RTOL = 1e-5;
function cmpValue(e, a) {
	if (e === null) return a === null || a === undefined;
	if (typeof e === 'number') return typeof a === 'number' && Math.abs(a - e) <= ATOL + RTOL * Math.abs(e);
	if (Array.isArray(e)) return Array.isArray(a) && a.length === e.length && e.every((x, i) => cmpValue(x, a[i]));
	if (typeof e === 'object') return JSON.stringify(e) === JSON.stringify(a);
	return e === a;
}
const matrixNoise = { count: 0, keys: new Set() };
function firstDiff(exp, act) {
	if (exp.clips) {
		for (const [name, c] of Object.entries(exp.clips)) {
			const o = act.clips?.[name];
			if (!o || !cmpValue(c.duration, o.duration) || c.blendMode !== o.blendMode || c.tracks.length !== o.tracks.length)
				return { step: -1, key: `clips.${name}`, e: c, a: o };
			for (let i = 0; i < c.tracks.length; i++)
				if (c.tracks[i].name !== o.tracks[i].name || !cmpValue(c.tracks[i].times, o.tracks[i].times) ||
					!cmpValue(c.tracks[i].values, o.tracks[i].values))
					return { step: -1, key: `clips.${name}.tracks[${i}]`, e: c.tracks[i], a: o.tracks[i] };
		}
	}
	if (exp.unexecutedOps !== act.unexecutedOps) return { step: -1, key: 'unexecutedOps', e: exp.unexecutedOps, a: act.unexecutedOps };
	for (let i = 0; i < exp.frames.length; i++) {
		const fe = exp.frames[i], fa = act.frames[i];
		if (!fa) return { step: i, key: 'frame missing' };
		if (fe.mixerTime !== fa.mixerTime && !cmpValue(fe.mixerTime, fa.mixerTime)) return { step: i, key: 'mixerTime', e: fe.mixerTime, a: fa.mixerTime };
		for (const [k, ev] of Object.entries(fe.values)) {
			const av = fa.values[k];
			let ok = cmpValue(ev, av);
			if (!ok && /\.quaternion$/.test(k) && Array.isArray(av)) ok = cmpValue(ev, av.map((x) => -x));
			if (!ok && /(boneMatrices|matrixWorld|vertices)$/.test(k) && Array.isArray(av) && av.length === ev.length &&
				ev.every((x, j) => typeof x === 'number' && typeof av[j] === 'number' && Math.abs(x - av[j]) <= 1e-4 * (1 + Math.abs(x)))) {
				// (both numbers: three's NaN is written as null, and null - x would count as 0 - x)
				// float rounding through a chain of matrices (a full pose played additively on
				// CesiumMan reaches 2.6e-5): counted apart, not a divergence
				matrixNoise.count++;
				matrixNoise.keys.add(k);
				continue;
			}
			if (!ok) return { step: i, key: k, e: ev, a: av };
		}
		const e = JSON.stringify(fe.events ?? []), a = JSON.stringify(fa.events ?? []);
		if (e !== a) return { step: i, key: 'events', e: fe.events ?? [], a: fa.events ?? [] };
	}
	return null;
}

async function main() {
	console.warn = () => {}; // three's warnings (smooth quaternion tracks fall back to linear)
	mkdirSync(outDir, { recursive: true });
	let oracle = null, cubic = null;
	if (oroyaBin) {
		oracle = await import(join(confDir, 'oracle', 'oracle.mjs'));
		cubic = await oracle.getCubicSplineFactory();
	}
	const tally = { run: 0, agree: 0, diverge: 0, oracleRefused: 0, oroyaRefused: 0, kernelAll: 0, kernelSome: 0, kernelNone: 0, kernelUnknown: 0 };
	for (let i = 0; i < count; i++) {
		const seed = seed0 + i;
		const sc = generate(seed);
		const file = join(outDir, `r${seed}.json`);
		writeFileSync(file, JSON.stringify(sc, null, 1) + '\n');
		if (!oroyaBin) continue;
		tally.run++;
		let expText;
		try {
			const res = await oracle.runScenario(sc, { cubic, baseDir: outDir });
			expText = oracle.formatResult(sc, res, { threeVersion: oracle.threeVersion(), cubicSource: cubic.source });
		} catch (e) {
			tally.oracleRefused++;
			console.log(`r${seed}: three refused: ${e.message}`);
			continue;
		}
		const exp = JSON.parse(expText);
		let diverged = false;
		const outs = {};
		for (const [path, env] of [['kernel', {}], ['property', { OROYA_PLAY_NO_RIG: '1' }]]) {
			const p = spawnSync(oroyaBin, ['play', '--report-path', '--allow-gltf-dir', assets, file], {
				env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 28,
			});
			if (p.error) throw new Error(`${oroyaBin}: ${p.error.message}`);
			if (p.status !== 0) {
				tally.oroyaRefused++;
				console.log(`r${seed} ${path}: oroya refused: ${p.stderr.trim().split('\n')[0]}`);
				diverged = true;
				break;
			}
			const m = /kernel (\d+) of (\d+)/.exec(p.stderr);
			if (path === 'property' && m && m[1] !== '0') continue; // binary without OROYA_PLAY_NO_RIG
			// how much of the "kernel" run took the pose kernel (a clip with two tracks on one
			// channel, for one, sends updates to the property path): counted in the summary
			if (path === 'kernel') {
				if (!m) tally.kernelUnknown++;
				else if (m[1] === m[2]) tally.kernelAll++;
				else if (m[1] === '0') tally.kernelNone++;
				else tally.kernelSome++;
			}
			outs[path] = p.stdout;
			const before = matrixNoise.count;
			matrixNoise.keys.clear();
			const d = firstDiff(exp, JSON.parse(p.stdout));
			if (matrixNoise.count > before)
				console.log(`r${seed} ${path}: ${matrixNoise.count - before} frame(s) of matrix rounding (1e-5..1e-4): ${[...matrixNoise.keys].join(', ')}`);
			if (d) {
				diverged = true;
				const show = (v) => { const j = JSON.stringify(v); return j && j.length > 160 ? j.slice(0, 160) + '...' : j; };
				console.log(`r${seed} ${path} (kernel ${m ? m[1] + '/' + m[2] : '?'}): step ${d.step} ${d.key}: three ${show(d.e)} oroya ${show(d.a)}`);
			}
		}
		if (diverged) {
			tally.diverge++;
			writeFileSync(join(outDir, `r${seed}.expected.json`), expText);
			for (const [k, v] of Object.entries(outs)) writeFileSync(join(outDir, `r${seed}.${k}.json`), v);
		} else {
			tally.agree++;
			if (!keepAll) rmSync(file);
		}
	}
	if (oroyaBin) console.log(JSON.stringify({ ...tally, matrixFramesWithin1e4: matrixNoise.count }));
	else console.log(`wrote ${count} scenarios to ${outDir}`);
}

await main();
