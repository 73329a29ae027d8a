// glTF scenes for the oracle: loads a .glb/.gltf with three's real GLTFLoader in
// Node and exposes its nodes, skins and clips under the names docs/scenario.md
// defines ("glTF scenarios").
//
// GLTFLoader runs unmodified. Two things it does cannot work in Node 20 and are
// routed around, without changing what the loader builds from the data:
//
// - Buffers. The parser reads every buffer that has a `uri` (external .bin files
//   and data: URIs alike) through its `fileLoader`, a FileLoader. FileLoader uses
//   fetch() and, on the streaming path, `new ProgressEvent(...)`, which Node 20 does
//   not define: data: URIs end in an unhandled rejection and the parse never
//   finishes, and plain file paths are not valid fetch URLs. A plugin callback swaps
//   `parser.fileLoader` for LocalFileLoader below, which answers the same
//   `load(url, onLoad, onProgress, onError)` call from the local file system (or by
//   decoding the data: URI). The GLB BIN chunk never goes through it.
// - Textures. Image decoding needs the DOM (`self.URL`, Image/ImageBitmap); any
//   textured model fails with "self is not defined". The same plugin answers
//   `loadTexture` with null first (it is put ahead of the built-in plugins), which
//   GLTFParser.assignTexture treats as "no texture". Materials are still built.
//   Nothing here depends on textures.

import { FileLoader, PropertyBinding } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { readFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';

export class GltfError extends Error {}

function toArrayBuffer(buf) {
	return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

function decodeDataUri(uri) {
	const comma = uri.indexOf(',');
	if (comma < 0) throw new GltfError(`bad data URI ${uri.slice(0, 40)}...`);
	const meta = uri.slice(5, comma);
	const body = uri.slice(comma + 1);
	return /;base64$/i.test(meta) ? Buffer.from(body, 'base64') : Buffer.from(decodeURIComponent(body), 'latin1');
}

// Serves GLTFParser.loadBuffer's `fileLoader.load(resolveURL(uri, path), ...)` from disk.
// `path` is the model's directory + '/', so a relative uri arrives as base + uri.
class LocalFileLoader extends FileLoader {
	constructor(manager, base) {
		super(manager);
		this.base = base;
		this.setResponseType('arraybuffer');
	}

	load(url, onLoad, onProgress, onError) {
		let bytes;
		try {
			if (/^data:/i.test(url)) bytes = decodeDataUri(url);
			else {
				if (!url.startsWith(this.base) || /^[a-z][a-z0-9+.-]*:/i.test(url.slice(this.base.length)))
					throw new GltfError(`only relative file URIs and data: URIs are supported, got ${url}`);
				// glTF URIs are RFC 3986 references: %-escapes are decoded, relative to the model's folder
				bytes = readFileSync(resolve(this.base, decodeURIComponent(url.slice(this.base.length))));
			}
		} catch (e) {
			Promise.resolve().then(() => onError && onError(e));
			return undefined;
		}
		// asynchronous like the real loader
		Promise.resolve().then(() => onLoad(toArrayBuffer(bytes)));
		return undefined;
	}
}

export async function loadGltf(file) {
	const abs = resolve(file);
	let data;
	try {
		data = readFileSync(abs);
	} catch (e) {
		throw new GltfError(`cannot read ${file}: ${e.message}`);
	}
	const base = dirname(abs) + sep;
	const loader = new GLTFLoader();
	// unshift, not register(): this plugin must answer loadTexture before the
	// built-in texture plugins (webp/avif/basisu), which would decode images
	loader.pluginCallbacks.unshift((parser) => {
		parser.fileLoader = new LocalFileLoader(parser.options.manager, base);
		return { name: 'oroya_oracle_node', loadTexture: () => Promise.resolve(null) };
	});
	const gltf = await new Promise((res, rej) => {
		try {
			loader.parse(toArrayBuffer(data), base, res, rej);
		} catch (e) {
			rej(e);
		}
	}).catch((e) => {
		throw new GltfError(`GLTFLoader failed on ${file}: ${e && e.message}`);
	});
	return gltf;
}

const NODE_INDEX_RE = /^node_(0|[1-9][0-9]*)$/;
const ANIM_INDEX_RE = /^animation_(0|[1-9][0-9]*)$/;
const SKIN_INDEX_RE = /^(0|[1-9][0-9]*)$/;

function countNames(list) {
	const m = new Map();
	for (const n of list) if (typeof n === 'string' && n !== '') m.set(n, (m.get(n) || 0) + 1);
	return m;
}

// Builds the name tables of docs/scenario.md ("glTF scenarios"):
//   nodes:  "node_<i>" for every glTF node i in the scene; also the node's glTF
//           `name` when it is non-empty, used by no other glTF node, not of the
//           form node_<digits>, and does not start with "action:" or "skin:".
//   clips:  "animation_<i>" for every animation i; also three's clip name, which is
//           the glTF `name` (or "animation_<i>" when it is missing or empty), when no
//           other animation has the same name and it is not animation_<digits> of
//           another index.
//   skins:  "<i>" (record key "skin:<i>.boneMatrices").
export async function buildGltfScene(gltf) {
	const parser = gltf.parser;
	const json = parser.json;
	const assoc = parser.associations;
	const nNodes = (json.nodes || []).length;

	// glTF node index -> three object, from the loader's own associations
	const nodeObjects = new Array(nNodes).fill(null);
	gltf.scene.traverse((o) => {
		const a = assoc.get(o);
		if (!a || a.nodes === undefined) return;
		if (nodeObjects[a.nodes]) throw new GltfError(`glTF node ${a.nodes} appears twice in the scene`);
		nodeObjects[a.nodes] = o;
	});

	const nodeByKey = new Map();
	for (let i = 0; i < nNodes; i++) nodeByKey.set(`node_${i}`, i);
	const nodeNames = (json.nodes || []).map((n) => n.name);
	const nodeCounts = countNames(nodeNames);
	for (let i = 0; i < nNodes; i++) {
		const n = nodeNames[i];
		if (typeof n !== 'string' || n === '' || nodeCounts.get(n) !== 1) continue;
		if (NODE_INDEX_RE.test(n) || n.startsWith('action:') || n.startsWith('skin:')) continue;
		nodeByKey.set(n, i);
	}

	const clipByName = new Map();
	const anims = gltf.animations;
	for (let i = 0; i < anims.length; i++) clipByName.set(`animation_${i}`, anims[i]);
	const clipCounts = countNames(anims.map((c) => c.name));
	for (let i = 0; i < anims.length; i++) {
		const n = anims[i].name;
		if (clipCounts.get(n) !== 1) continue;
		const m = ANIM_INDEX_RE.exec(n);
		if (m && Number(m[1]) !== i) continue;
		clipByName.set(n, anims[i]);
	}

	const skeletons = [];
	for (let i = 0; i < (json.skins || []).length; i++) skeletons.push(await parser.getDependency('skin', i));

	// morph targets of glTF node i: the Mesh of primitive 0 of its mesh (every
	// primitive of a glTF mesh gets its own copy of the same weights track)
	function morphMesh(i) {
		const o = nodeObjects[i];
		const meshIndex = json.nodes[i].mesh;
		if (!o || meshIndex === undefined) return null;
		if (o.morphTargetInfluences) return o;
		let best = null, bestPrim = Infinity;
		o.traverse((c) => {
			const a = assoc.get(c);
			if (!c.morphTargetInfluences || !a || a.meshes !== meshIndex || a.nodes !== undefined) return;
			if (a.primitives !== undefined && a.primitives < bestPrim) {
				best = c;
				bestPrim = a.primitives;
			}
		});
		return best;
	}

	return {
		json,
		scene: gltf.scene,
		clips: anims,
		nodeObjects,
		skeletons,
		// -> three object or undefined (not a glTF key); throws for a key of a node outside the scene
		node(key) {
			const i = nodeByKey.get(key);
			if (i === undefined) return undefined;
			if (!nodeObjects[i]) throw new GltfError(`glTF node ${key} (index ${i}) is not in the loaded scene`);
			return nodeObjects[i];
		},
		nodeIndex(key) {
			return nodeByKey.get(key);
		},
		morphMesh(key) {
			const i = nodeByKey.get(key);
			return i === undefined ? null : morphMesh(i);
		},
		clip(name) {
			return clipByName.get(name);
		},
		clipNames() {
			return [...clipByName.keys()];
		},
		skeleton(key) {
			if (!SKIN_INDEX_RE.test(key)) return undefined;
			return skeletons[Number(key)];
		},
	};
}

// The mixer binds a track to the first object in a depth-first search of the root
// whose name (or uuid) equals the track's node name. The results only mean what the
// glTF says if that object is unique; returns the names that are not.
export function ambiguousTrackTargets(root, clips) {
	const bad = new Set();
	const seen = new Map();
	for (const clip of clips) {
		for (const track of clip.tracks) {
			const nodeName = PropertyBinding.parseTrackName(track.name).nodeName;
			if (seen.has(nodeName)) continue;
			let n = 0;
			root.traverse((o) => {
				if (o !== root && (o.name === nodeName || o.uuid === nodeName)) n++;
			});
			seen.set(nodeName, n);
			if (n !== 1) bad.add(`${nodeName} (${n} objects)`);
		}
	}
	return [...bad];
}

export { NODE_INDEX_RE, ANIM_INDEX_RE };
