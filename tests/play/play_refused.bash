# Sourced by tests/play/test_play_*.sh: expect_refused JSON TEXT runs `oroya play` on the
# scenario file JSON and fails the test (fail=1) unless the run is refused with an error
# containing TEXT. Needs $oroya and $fail from the caller.
expect_refused() {
	if "$oroya" play "$1" > /dev/null 2> "$1.err"; then
		echo "FAIL: accepted $1: $(head -c 300 "$1")"; fail=1
	elif ! grep -qF -- "$2" "$1.err"; then
		echo "FAIL: error '$(cat "$1.err")' lacks '$2'"; fail=1
	fi
}
