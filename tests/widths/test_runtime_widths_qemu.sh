#!/usr/bin/env bash
# The runtime frame gives the same bits on other x86-64 CPUs: test_runtime_widths --print (the
# benchmark humanoid with IKs, and with cubic clips, a warped cross-fade and an additive layer;
# hashes of every frame's bone and model matrices) runs on this CPU and again under qemu-user
# on two emulated CPUs: Nehalem (SSE4.2: no AVX, AVX2 or FMA) and max (AVX2 and FMA). The
# library picks its code by the CPU it sees (the pose kernel's AVX2 or SSE2 width, the IK
# solver's AVX2 or baseline clone, libm's FMA or SSE2 variants), so the emulated Nehalem runs
# the paths this machine skips, and max runs the AVX2 paths even on a host without AVX2.
# Every run must print the same hashes; each emulated run must report the CPU features it was
# given (else the comparison would prove nothing).
#   bash test_runtime_widths_qemu.sh BUILD_DIR SOURCE_DIR
# Exit 77 (ctest: skipped) where it cannot run: not an x86-64 host, or no qemu-x86_64
# (scripts/deps.sh installs qemu-user, so under `make test` it always runs).
set -u
build="${1:?BUILD_DIR}"
bin="$build/tests/test_runtime_widths"
if [ "$(uname -m)" != x86_64 ]; then
  echo "test_runtime_widths_qemu.sh: not an x86-64 host: skipped" >&2
  exit 77
fi
qemu="$(command -v qemu-x86_64 || true)"
if [ -z "$qemu" ]; then
  echo "test_runtime_widths_qemu.sh: qemu-x86_64 not found (Debian package qemu-user): skipped" >&2
  exit 77
fi
[ -x "$bin" ] || { echo "test_runtime_widths_qemu.sh: $bin not built" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0

# One run: its output in $tmp/NAME.out, the hashes alone in $tmp/NAME.hash.
run() {
  local name="$1"; shift
  if ! "$@" "$bin" --print >"$tmp/$name.out" 2>&1; then
    echo "FAIL $name: the run failed:"; sed 's/^/  /' "$tmp/$name.out"
    fail=1
  fi
  grep -E '^(ik|blend) ' "$tmp/$name.out" >"$tmp/$name.hash"
}
run native
run nehalem "$qemu" -cpu Nehalem
run max "$qemu" -cpu max

cpu_line() { grep -m1 '^cpu ' "$tmp/$1.out"; }
native_cpu="$(cpu_line native)"
echo "this machine: $native_cpu"
case "$native_cpu" in
  "cpu avx2 1 "*) ;;
  *) echo "note: this CPU has no AVX2: its run took the SSE2 paths (max covers AVX2)" ;;
esac
if [ "$(cpu_line nehalem)" != "cpu avx2 0 fma 0" ]; then
  echo "FAIL nehalem: expected 'cpu avx2 0 fma 0', got '$(cpu_line nehalem)'"
  fail=1
fi
if [ "$(cpu_line max)" != "cpu avx2 1 fma 1" ]; then
  echo "FAIL max: expected 'cpu avx2 1 fma 1', got '$(cpu_line max)'"
  fail=1
fi
# Four hashes per workload, and the IK ran: no fallback, the pose changed every frame.
if [ "$(grep -c ' frame ' "$tmp/native.hash")" != 8 ] ||
   ! grep -qx 'ik fallbacks 0 changed 400 of 400' "$tmp/native.hash"; then
  echo "FAIL native: unexpected output:"; sed 's/^/  /' "$tmp/native.out"
  fail=1
fi
for name in nehalem max; do
  if ! diff "$tmp/native.hash" "$tmp/$name.hash" >"$tmp/$name.diff"; then
    echo "FAIL $name: the hashes differ from this CPU's (< this CPU, > $name):"
    sed 's/^/  /' "$tmp/$name.diff"
    fail=1
  else
    echo "ok $name: the same $(grep -c ' frame ' "$tmp/$name.hash") hashes"
  fi
done
exit $fail
