# Shared by the CLI test scripts (sourced once BUILD, SRC and OROYA are set): a scratch folder
# that is the working directory and is removed at exit, failure counting, and `expect`.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect CODE PATTERN command...: the exit code, and PATTERN (grep) in stderr.
expect() {
    local code=$1 pattern=$2
    shift 2
    "$@" >out.txt 2>err.txt
    local got=$?
    [ "$got" -eq "$code" ] || fail "'$*' exited $got, expected $code"
    grep -q -- "$pattern" err.txt || fail "'$*': stderr lacks '$pattern': $(cat err.txt)"
}

# finish WHAT: the summary line and the exit status.
finish() {
    if [ "$fails" -ne 0 ]; then
        echo "$fails failure(s)"
        exit 1
    fi
    echo "all $1 checks passed"
    exit 0
}
