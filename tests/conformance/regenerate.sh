#!/usr/bin/env bash
# Regenerates the expected files of tests/conformance from three.js 0.187, with the
# reference runner in oracle/ (oracle.mjs, the scenario format of docs/scenario.md on three's
# AnimationMixer and GLTFLoader). It is copied to a temporary folder and three is installed
# there with `npm ci` from oracle/package-lock.json (needs node and npm, and the npm registry
# once), so this checkout is left untouched.
#
#   bash tests/conformance/regenerate.sh [--check] [ORACLE_DIR]
#
# ORACLE_DIR (default: oracle/ here) may name another copy of the runner. What it writes:
#   - X.expected.json for every scenario X.json here and in gltf/ (oracle/tools/run_all.mjs);
#   - deviations/e_additive_ref_cubic.expected.json (deviation 3): the runner on the
#     scenario with pre-multiplied tangents (tools/deviation3_input.mjs), plus its note.
# deviations/f_loops.expected.json (deviation 2) is a hand edit of three's f_loops output and
# deviations/negative_dt.expected.json (deviation 1) is hand-written: after regenerating,
# re-apply the f_loops edit if three's f_loops output changed (the script warns then).
# --check: regenerate into a temporary folder and fail if anything differs.
set -euo pipefail

check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
oracle="${1:-$here/oracle}"
oracle="$(cd "$oracle" && pwd)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/oracle"
(cd "$oracle" && tar --exclude=node_modules -cf - .) | (cd "$tmp/oracle" && tar -xf -)
chmod -R u+w "$tmp/oracle"
(cd "$tmp/oracle" && npm ci --no-audit --no-fund >/dev/null)

# Work on a copy so --check leaves the tree untouched.
work="$tmp/conformance"
mkdir -p "$work/gltf" "$work/deviations"
cp "$here"/*.json "$work/"
cp "$here"/gltf/*.json "$work/gltf/"
cp "$here"/deviations/* "$work/deviations/"
node "$tmp/oracle/tools/run_all.mjs" "$work" >/dev/null
# gltf/ scenarios name their models relative to themselves (../../assets/...),
# which resolves only from the real folder: the oracle reads them in place.
for f in "$here"/gltf/*.json; do
	case "$f" in *.expected.json) continue ;; esac
	name="$(basename "$f" .json)"
	(cd "$tmp/oracle" && node oracle.mjs "$f") >"$work/gltf/$name.expected.json"
done

three="$tmp/oracle/node_modules/three/build/three.module.js"
node "$here/tools/deviation3_input.mjs" "$three" "$work/e_additive_ref_cubic.json" \
	>"$work/deviations/e_additive_ref_cubic.oracle_input.json"
(cd "$tmp/oracle" && node oracle.mjs "$work/deviations/e_additive_ref_cubic.oracle_input.json") >"$tmp/dev3.json"
node -e '
const fs = require("fs");
const s = fs.readFileSync(process.argv[1], "utf8");
const old = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const head = "{\"note\":" + JSON.stringify(old.note) + ",\"deviation\":3,";
fs.writeFileSync(process.argv[3], head + s.slice(1));
' "$tmp/dev3.json" "$here/deviations/e_additive_ref_cubic.expected.json" \
	"$work/deviations/e_additive_ref_cubic.expected.json"

# Deviation 2 is a hand edit of three's f_loops output: warn when three's output moved.
if ! cmp -s "$work/f_loops.expected.json" "$here/f_loops.expected.json"; then
	echo "regenerate.sh: three's f_loops output changed; re-apply the deviation 2 edit to deviations/f_loops.expected.json" >&2
fi

status=0
for f in "$work"/*.expected.json "$work"/gltf/*.expected.json "$work"/deviations/e_additive_ref_cubic.*; do
	rel="${f#"$work"/}"
	if [ $check = 1 ]; then
		if ! cmp -s "$f" "$here/$rel"; then
			echo "DIFFERS $rel"
			status=1
		fi
	else
		cp "$f" "$here/$rel"
	fi
done
[ $check = 1 ] && [ $status = 0 ] && echo "all expected files are current"
exit $status
