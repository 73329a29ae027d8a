#!/usr/bin/env bash
# Conformance with three.js 0.187: runs every scenario in this folder (and gltf/, deviations/)
# through `oroya play` and compares the result with three.js's expected file (from oracle/)
# using tools/compare.mjs: numbers within
# 1e-5 + 1e-5 * |expected| (compare.mjs's defaults; the relative part only matters above
# magnitude 1, where oroya's float node transforms cannot hold three's doubles to 1e-5:
# AnimatedMorphCube's scale-100 node), quaternions up to sign, booleans, strings, action
# fields and events exact.
#
#   bash test_conformance.sh BUILD_DIR SOURCE_DIR [NAME...]
#
# The expected file of X.json is deviations/X.expected.json when that exists (oroya's three
# documented deviations from three.js; each carries a "note"), else X.expected.json beside
# it (three's output, from oracle/ by regenerate.sh). An expected file with "expectError"
# requires `oroya play` to fail with that exit status and message instead.
# Scenarios named in expected_failures.txt must fail (XFAIL); if one passes (XPASS) the test
# fails so the list gets updated. Every scenario that runs must also take the pose kernel path
# on every mixer update (`oroya play --report-path`), except those named in property_path.txt,
# which must not (so that list gets updated too). Exit status 0 when everything is as expected.
set -u

build="${1:?usage: test_conformance.sh BUILD_DIR SOURCE_DIR [NAME...]}"
src="${2:?usage: test_conformance.sh BUILD_DIR SOURCE_DIR [NAME...]}"
shift 2
here="$src/tests/conformance"
oroya="$build/oroya"
compare="$here/tools/compare.mjs"

command -v node >/dev/null || { echo "test_conformance.sh: node is required" >&2; exit 1; }
[ -x "$oroya" ] || { echo "test_conformance.sh: $oroya not built" >&2; exit 1; }

# A list file: one name per line, then ' # reason'; comments and blank lines skipped.
read_names() {
	local line
	while IFS= read -r line; do
		line="${line%%#*}"
		line="$(echo "$line" | tr -d '[:space:]')"
		[ -n "$line" ] && echo "$line"
	done <"$1"
}
in_list() { # NAME FILE
	read_names "$2" | grep -qxF -- "$1"
}
is_xfail() { in_list "$1" "$here/expected_failures.txt"; }
is_property() { in_list "$1" "$here/property_path.txt"; }

scenarios=()
for dir in "$here" "$here/gltf" "$here/deviations"; do
	while IFS= read -r f; do scenarios+=("$f"); done < <(
		find "$dir" -maxdepth 1 -type f -name '*.json' ! -name '*.expected.json' \
			! -name '*.oracle_input.json' ! -name '*.actual.json' | LC_ALL=C sort)
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

pass=0 fail=0 xfail=0 xpass=0
for sc in "${scenarios[@]}"; do
	name="$(basename "$sc" .json)"
	if [ $# -gt 0 ]; then
		want=0
		for n in "$@"; do [ "$n" = "$name" ] && want=1; done
		[ $want = 1 ] || continue
	fi
	expected="$here/deviations/$name.expected.json"
	[ -f "$expected" ] || expected="$(dirname "$sc")/$name.expected.json"
	if [ ! -f "$expected" ]; then
		echo "FAIL $name: no expected file"
		fail=$((fail + 1))
		continue
	fi
	# The glTF scenarios name "../../assets/...": the project's own models, allowed explicitly.
	"$oroya" play --allow-gltf-dir "$src/tests/assets" --report-path "$sc" >"$tmp/out.json" \
		2>"$tmp/err.txt" </dev/null
	rc=$?
	expect_error="$(node -e '
		const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		if (e.expectError) process.stdout.write(JSON.stringify(e.expectError));' "$expected")"
	ok=0
	why=""
	if [ -n "$expect_error" ]; then
		want_rc="$(node -e 'process.stdout.write(String(JSON.parse(process.argv[1]).exitStatus))' "$expect_error")"
		want_msg="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).stderrContains)' "$expect_error")"
		if [ "$rc" = "$want_rc" ] && grep -qF -- "$want_msg" "$tmp/err.txt"; then
			ok=1
		else
			why="expected exit $want_rc with '$want_msg', got exit $rc: $(head -c 200 "$tmp/err.txt")"
		fi
	elif [ $rc -ne 0 ]; then
		why="oroya play exit $rc: $(head -c 300 "$tmp/err.txt" | tr '\n' ' ')"
	elif ! node "$compare" "$expected" "$tmp/out.json" --atol 1e-5 --rtol 1e-5 --quat-sign >"$tmp/report" 2>&1; then
		why="$(grep -m1 '^FAIL\|^frame\|Error' "$tmp/report" | head -c 400)"
	else
		# "oroya play: FILE: path: kernel K of N updates"
		path_line="$(grep -m1 ': path: kernel [0-9]* of [0-9]* updates$' "$tmp/err.txt")"
		k="$(echo "$path_line" | sed -n 's/.*: path: kernel \([0-9]*\) of \([0-9]*\) updates$/\1/p')"
		n="$(echo "$path_line" | sed -n 's/.*: path: kernel \([0-9]*\) of \([0-9]*\) updates$/\2/p')"
		if [ -z "$k" ] || [ -z "$n" ]; then
			why="oroya play --report-path printed no path line"
		elif is_property "$name"; then
			if [ "$k" -lt "$n" ]; then
				ok=1
			else
				why="every update ($k of $n) ran on the pose kernel now: remove it from property_path.txt"
			fi
		elif [ "$n" -gt 0 ] && [ "$k" = "$n" ]; then
			ok=1
		else
			why="only $k of $n mixer updates ran on the pose kernel (not listed in property_path.txt)"
		fi
	fi
	if is_xfail "$name"; then
		if [ $ok = 1 ]; then
			echo "XPASS $name: passes now; remove it from expected_failures.txt"
			xpass=$((xpass + 1))
		else
			echo "XFAIL $name: ${why}"
			xfail=$((xfail + 1))
		fi
	elif [ $ok = 1 ]; then
		note=""
		[ "$expected" = "$here/deviations/$name.expected.json" ] && note=" (deviation expected file)"
		is_property "$name" && note="$note (property path: property_path.txt)"
		echo "PASS $name$note"
		pass=$((pass + 1))
	else
		echo "FAIL $name: $why"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed, $xfail expected failures, $xpass unexpected passes"
[ $fail -eq 0 ] && [ $xpass -eq 0 ] && [ $((pass + xfail)) -gt 0 ]
