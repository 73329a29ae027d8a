// Loads web/build/oroya.js (the WebAssembly build of oroya; SIMD128 kernels) or, with
// ?build=portable in the page's address, web/build/oroya_portable.js (the portable C kernels),
// and wraps the few calls the pages share. Each script defines createOroya (emscripten's
// MODULARIZE factory).

export function buildName() {
  return new URLSearchParams(location.search).get('build') === 'portable' ? 'oroya_portable' : 'oroya';
}

export async function loadOroya(base) {
  const src = `${base}build/${buildName()}.js`;
  await new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`${src} did not load: run \`make web\` first`));
    document.head.append(s);
  });
  return createOroya();
}

// Copies bytes into the module's heap, calls fn(ptr, size) and frees them again.
export function withBytes(ow, bytes, fn) {
  const p = ow._malloc(bytes.length || 1);
  if (!p) throw new Error('out of memory in the WebAssembly heap');
  ow.HEAPU8.set(bytes, p);
  try {
    return fn(p, bytes.length);
  } finally {
    ow._free(p);
  }
}

export function withString(ow, s, fn) {
  const n = ow.lengthBytesUTF8(s) + 1, p = ow._malloc(n);
  ow.stringToUTF8(s, p, n);
  try {
    return fn(p);
  } finally {
    ow._free(p);
  }
}

export function lastError(ow) {
  return ow.UTF8ToString(ow._ow_error());
}
