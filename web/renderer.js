// WebGL2 renderer for oroya models: the shader program of oroya's GLES 3 renderer
// (src/internal/render_shaders.h, read from the wasm module), GPU skinning through the bone
// texture (three.js layout, RGBA32F) and morph targets from a delta texture, as src/render/render.c.
// It draws what web/oroya_web.c's draw list describes; the CPU never skins a vertex.

const MORPH_TEXTURE_WIDTH = 2048; // src/render/render.c's MORPH_TEXTURE_WIDTH
const MAX_MORPHS = 64;            // u_morph_weights[64]
const UNIFORMS = [
  'u_model', 'u_view_proj', 'u_normal_matrix', 'u_skinned', 'u_bones', 'u_bind', 'u_bind_inv',
  'u_morph_count', 'u_morph_weights', 'u_morphs', 'u_vertex_count', 'u_morph_normals',
  'u_base_color', 'u_metallic', 'u_roughness', 'u_grid', 'u_unlit', 'u_camera_pos',
  'u_light_count', 'u_light_vec', 'u_light_color', 'u_ambient', 'u_skin8', 'u_base_tex',
  'u_has_tex',
];

function compile(gl, type, source) {
  const s = gl.createShader(type);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) {
    throw new Error('shader: ' + gl.getShaderInfoLog(s));
  }
  return s;
}

// Column-major 4x4 helpers (Float32Array(16)).
export const mat4 = {
  perspective(fovy, aspect, near, far) {
    const f = 1 / Math.tan(fovy / 2), m = new Float32Array(16);
    m[0] = f / aspect; m[5] = f; m[10] = (far + near) / (near - far); m[11] = -1;
    m[14] = 2 * far * near / (near - far);
    return m;
  },
  lookAt(eye, at, up) {
    const z = norm(sub(eye, at)), x = norm(cross(up, z)), y = cross(z, x);
    return new Float32Array([x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
      -dot(x, eye), -dot(y, eye), -dot(z, eye), 1]);
  },
  mul(a, b) {
    const m = new Float32Array(16);
    for (let c = 0; c < 4; c++) {
      for (let r = 0; r < 4; r++) {
        let s = 0;
        for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
        m[c * 4 + r] = s;
      }
    }
    return m;
  },
  // Inverse-transpose of the upper 3x3 (the normal matrix), column-major 3x3.
  normal(m) {
    const a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
    const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    const det = a * A + b * B + c * C;
    if (!det) return new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    const k = 1 / det;
    // inverse(M)^T: cofactor matrix / det
    return new Float32Array([A * k, B * k, C * k,
      -(b * i - c * h) * k, (a * i - c * g) * k, -(a * h - b * g) * k,
      (b * f - c * e) * k, -(a * f - c * d) * k, (a * e - b * d) * k]);
  },
};
function sub(a, b) { return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]; }
function dot(a, b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
function cross(a, b) { return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; }
function norm(a) { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; }

export class Renderer {
  constructor(canvas, ow) {
    this.ow = ow;
    const gl = canvas.getContext('webgl2', { antialias: true });
    if (!gl) throw new Error('WebGL2 is not available in this browser');
    this.gl = gl;
    this.canvas = canvas;
    const vs = compile(gl, gl.VERTEX_SHADER, ow.UTF8ToString(ow._ow_vertex_shader()));
    const fs = compile(gl, gl.FRAGMENT_SHADER, ow.UTF8ToString(ow._ow_fragment_shader()));
    const p = gl.createProgram();
    gl.attachShader(p, vs);
    gl.attachShader(p, fs);
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error('program: ' + gl.getProgramInfoLog(p));
    this.program = p;
    this.u = {};
    for (const n of UNIFORMS) this.u[n] = gl.getUniformLocation(p, n);
    gl.useProgram(p);
    gl.uniform1i(this.u.u_bones, 0);
    gl.uniform1i(this.u.u_morphs, 1);
    gl.uniform1i(this.u.u_base_tex, 2);
    // Unskinned meshes leave the joint attributes disabled: WebGL2 then wants integer generic
    // values for the uvec4 inputs (a float default is an INVALID_OPERATION at draw).
    gl.vertexAttribI4ui(2, 0, 0, 0, 0);
    gl.vertexAttribI4ui(4, 0, 0, 0, 0);
    this.empty = this.floatTexture(1, 1, new Float32Array(4));
    this.boneTexture = null;
    this.boneSide = 0;
    this.meshes = [];   // per draw item of the current model
    this.textures = []; // per image
    this.ground = this.makeGround();
  }

  floatTexture(w, h, data) {
    const gl = this.gl, t = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, t);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, w, h, 0, gl.RGBA, gl.FLOAT, data);
    return t;
  }

  buffer(target, data) {
    const gl = this.gl, b = gl.createBuffer();
    gl.bindBuffer(target, b);
    gl.bufferData(target, data, gl.STATIC_DRAW);
    return b;
  }

  makeGround() {
    const gl = this.gl, s = 50;
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    this.buffer(gl.ARRAY_BUFFER, new Float32Array([-s, 0, -s, s, 0, -s, s, 0, s, -s, 0, s]));
    gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
    gl.enableVertexAttribArray(0);
    this.buffer(gl.ARRAY_BUFFER, new Float32Array([0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0]));
    gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 0, 0);
    gl.enableVertexAttribArray(1);
    this.buffer(gl.ELEMENT_ARRAY_BUFFER, new Uint32Array([0, 2, 1, 0, 3, 2]));
    gl.bindVertexArray(null);
    return { vao, count: 6, y: 0 };
  }

  // Uploads the meshes and images of an ow_model (a pointer).
  setModel(model) {
    const gl = this.gl, ow = this.ow;
    for (const m of this.meshes) gl.deleteVertexArray(m.vao);
    for (const t of this.textures) if (t) gl.deleteTexture(t);
    this.meshes = [];
    this.textures = [];
    this.model = model;
    const f32 = (ptr, n) => ow.HEAPF32.slice(ptr >> 2, (ptr >> 2) + n);
    const draws = ow._ow_draw_count(model);
    for (let i = 0; i < draws; i++) {
      const d = ow.HEAPU32.slice(ow._ow_draw(model, i) >> 2, (ow._ow_draw(model, i) >> 2) + 32);
      const vc = d[0], ic = d[1];
      const vao = gl.createVertexArray();
      gl.bindVertexArray(vao);
      this.buffer(gl.ARRAY_BUFFER, f32(d[2], vc * 3));
      gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
      gl.enableVertexAttribArray(0);
      if (d[3]) {
        this.buffer(gl.ARRAY_BUFFER, f32(d[3], vc * 3));
        gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 0, 0);
        gl.enableVertexAttribArray(1);
      } else {
        gl.vertexAttrib3f(1, 0, 0, 1);
      }
      // Four influences: u16 joint indices at `loc`, float weights at loc + 1.
      const influences = (loc, joints, weights) => {
        this.buffer(gl.ARRAY_BUFFER, ow.HEAPU16.slice(joints >> 1, (joints >> 1) + vc * 4));
        gl.vertexAttribIPointer(loc, 4, gl.UNSIGNED_SHORT, 0, 0);
        gl.enableVertexAttribArray(loc);
        this.buffer(gl.ARRAY_BUFFER, f32(weights, vc * 4));
        gl.vertexAttribPointer(loc + 1, 4, gl.FLOAT, false, 0, 0);
        gl.enableVertexAttribArray(loc + 1);
      };
      const skinned = d[14] !== 0 && d[6] !== 0;
      if (skinned) {
        influences(2, d[6], d[7]);
        if (d[8]) influences(4, d[8], d[9]);
      }
      if (d[4]) {
        this.buffer(gl.ARRAY_BUFFER, f32(d[4], vc * 2));
        gl.vertexAttribPointer(6, 2, gl.FLOAT, false, 0, 0);
        gl.enableVertexAttribArray(6);
      }
      this.buffer(gl.ELEMENT_ARRAY_BUFFER, ow.HEAPU32.slice(d[5] >> 2, (d[5] >> 2) + ic));
      gl.bindVertexArray(null);
      // Texel (t * vertex_count + v) * 2: position delta, then normal delta (src/render/render.c).
      let morph = null;
      const targets = Math.min(d[10], MAX_MORPHS);
      if (targets && d[11]) {
        const texels = targets * vc * 2, rows = Math.ceil(texels / MORPH_TEXTURE_WIDTH);
        const data = new Float32Array(rows * MORPH_TEXTURE_WIDTH * 4);
        const mp = f32(d[11], targets * vc * 3), mn = d[12] ? f32(d[12], targets * vc * 3) : null;
        for (let t = 0; t < targets; t++) {
          for (let v = 0; v < vc; v++) {
            const k = (t * vc + v) * 2, s = (t * vc + v) * 3;
            data.set(mp.subarray(s, s + 3), k * 4);
            if (mn) data.set(mn.subarray(s, s + 3), (k + 1) * 4);
          }
        }
        morph = this.floatTexture(MORPH_TEXTURE_WIDTH, rows, data);
      }
      this.meshes.push({ vao, count: ic, vertexCount: vc, skinned, skin8: skinned && d[8] !== 0,
        morph, morphCount: targets, morphNormals: d[12] !== 0, image: d[23] });
    }
    // Base color images: RGBA8, top row first, sRGB (src/render/render.c's texture upload).
    const images = new Set(this.meshes.map((m) => m.image).filter((i) => i !== 0xffffffff));
    for (const i of images) {
      const w = ow._ow_image_width(model, i), h = ow._ow_image_height(model, i);
      if (!w || !h) continue;
      const px = ow.HEAPU8.slice(ow._ow_image_pixels(model, i), ow._ow_image_pixels(model, i) + w * h * 4);
      const t = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, t);
      gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.SRGB8_ALPHA8, w, h, 0, gl.RGBA, gl.UNSIGNED_BYTE, px);
      gl.generateMipmap(gl.TEXTURE_2D);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT);
      this.textures[i] = t;
    }
  }

  // World-space bounds of the current pose's bind-space meshes (for framing the camera).
  bounds() {
    const ow = this.ow, model = this.model;
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const draws = ow._ow_draw_count(model);
    for (let i = 0; i < draws; i++) {
      const dp = ow._ow_draw(model, i) >> 2;
      const d = ow.HEAPU32.subarray(dp, dp + 32);
      const p = ow.HEAPF32.subarray(d[2] >> 2, (d[2] >> 2) + d[0] * 3);
      // The rest pose in the node's space (skins are bound with the node's world matrix).
      const mp = d[13];
      const m = ow.HEAPF32.subarray(mp >> 2, (mp >> 2) + 16);
      for (let v = 0; v < d[0]; v += 7) {
        const x = p[v * 3], y = p[v * 3 + 1], z = p[v * 3 + 2];
        for (let a = 0; a < 3; a++) {
          const w = m[a] * x + m[4 + a] * y + m[8 + a] * z + m[12 + a];
          lo[a] = Math.min(lo[a], w);
          hi[a] = Math.max(hi[a], w);
        }
      }
    }
    return { lo, hi };
  }

  // Draws the current model; camera = {eye, at}. Reads the pose of the last ow_update.
  draw(camera, background = [0.12, 0.13, 0.15]) {
    const gl = this.gl, ow = this.ow, u = this.u, model = this.model;
    const w = this.canvas.width, h = this.canvas.height;
    gl.viewport(0, 0, w, h);
    gl.clearColor(...background.map((c) => Math.pow(c, 1 / 2.2)), 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LESS);
    gl.useProgram(this.program);
    const proj = mat4.perspective(45 * Math.PI / 180, w / h, camera.near, camera.far);
    const view = mat4.lookAt(camera.eye, camera.at, [0, 1, 0]);
    gl.uniformMatrix4fv(u.u_view_proj, false, mat4.mul(proj, view));
    gl.uniform3fv(u.u_camera_pos, camera.eye);
    gl.uniform1i(u.u_light_count, 2);
    const lv = new Float32Array(32), lc = new Float32Array(32);
    lv.set([-0.5, -1, -0.6, 0, 0.7, -0.4, 0.8, 0]);
    lc.set([1.0, 0.97, 0.9, 0, 0.35, 0.4, 0.5, 0]);
    gl.uniform4fv(u.u_light_vec, lv);
    gl.uniform4fv(u.u_light_color, lc);
    gl.uniform3f(u.u_ambient, 0.3, 0.3, 0.33);
    const identity = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    // The ground: a grid plane at the model's feet.
    if (camera.ground !== undefined) {
      const g = identity.slice();
      g[13] = camera.ground;
      this.drawMesh(this.ground, { model: g, color: [0.5, 0.52, 0.55, 1], metallic: 0, roughness: 1,
        grid: camera.gridSpacing || 0.5, doubleSided: true });
    }
    if (!model) return;
    const draws = ow._ow_draw_count(model);
    for (let i = 0; i < draws; i++) {
      const dp = ow._ow_draw(model, i) >> 2;
      const d = ow.HEAPU32.slice(dp, dp + 32);
      const mesh = this.meshes[i];
      if (!d[24] || !mesh) continue;
      const f = (p, n) => ow.HEAPF32.subarray(p >> 2, (p >> 2) + n);
      const desc = {
        model: f(d[13], 16), color: Array.from(f(d[20], 4)),
        metallic: new Float32Array(d.buffer, 21 * 4, 1)[0],
        roughness: new Float32Array(d.buffer, 22 * 4, 1)[0],
        doubleSided: d[25] !== 0, texture: this.textures[d[23]] || null,
      };
      if (mesh.skinned) {
        desc.bones = d[14];
        desc.boneSide = d[27];
        desc.bind = f(d[16], 16);
        desc.bindInv = f(d[17], 16);
      }
      if (mesh.morphCount && d[18]) desc.morphWeights = f(d[18], Math.min(d[19], mesh.morphCount));
      this.drawMesh(mesh, desc);
    }
  }

  drawMesh(mesh, d) {
    const gl = this.gl, u = this.u, ow = this.ow;
    const identity = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    gl.activeTexture(gl.TEXTURE0);
    if (mesh.skinned && d.bones) {
      const side = d.boneSide;
      if (side !== this.boneSide) {
        if (this.boneTexture) gl.deleteTexture(this.boneTexture);
        this.boneTexture = this.floatTexture(side, side, new Float32Array(side * side * 4));
        this.boneSide = side;
      }
      gl.bindTexture(gl.TEXTURE_2D, this.boneTexture);
      // The skeleton's bone_matrices is allocated at the texture's size (zero padded).
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, side, side, gl.RGBA, gl.FLOAT,
        ow.HEAPF32.subarray(d.bones >> 2, (d.bones >> 2) + side * side * 4));
    } else {
      gl.bindTexture(gl.TEXTURE_2D, this.empty);
    }
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, mesh.morph || this.empty);
    gl.activeTexture(gl.TEXTURE2);
    gl.bindTexture(gl.TEXTURE_2D, d.texture || this.empty);
    gl.uniform1i(u.u_has_tex, d.texture ? 1 : 0);
    gl.activeTexture(gl.TEXTURE0);
    gl.uniformMatrix4fv(u.u_model, false, d.model);
    gl.uniformMatrix3fv(u.u_normal_matrix, false, mat4.normal(d.model));
    gl.uniform1i(u.u_skinned, mesh.skinned ? 1 : 0);
    gl.uniform1i(u.u_skin8, mesh.skin8 ? 1 : 0);
    gl.uniformMatrix4fv(u.u_bind, false, d.bind || identity);
    gl.uniformMatrix4fv(u.u_bind_inv, false, d.bindInv || identity);
    const weights = new Float32Array(MAX_MORPHS);
    if (d.morphWeights) weights.set(d.morphWeights);
    gl.uniform1i(u.u_morph_count, d.morphWeights ? d.morphWeights.length : 0);
    gl.uniform1fv(u.u_morph_weights, weights);
    gl.uniform1i(u.u_vertex_count, mesh.vertexCount || 0);
    gl.uniform1i(u.u_morph_normals, mesh.morphNormals ? 1 : 0);
    gl.uniform4fv(u.u_base_color, d.color);
    gl.uniform1f(u.u_metallic, d.metallic);
    gl.uniform1f(u.u_roughness, d.roughness);
    gl.uniform1f(u.u_grid, d.grid || 0);
    gl.uniform1i(u.u_unlit, 0);
    if (d.doubleSided) gl.disable(gl.CULL_FACE); else gl.enable(gl.CULL_FACE);
    gl.bindVertexArray(mesh.vao);
    gl.drawElements(gl.TRIANGLES, mesh.count, gl.UNSIGNED_INT, 0);
    gl.bindVertexArray(null);
    gl.disable(gl.CULL_FACE);
  }
}
