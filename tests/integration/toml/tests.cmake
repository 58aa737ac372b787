# TOML conformance: the toml-test cases (TOML 1.0.0) in ../shared/toml-test, graded against
# build/toml-decode by the suite's own grade.py. Where the shared data (or python3) is not
# available the test exits 77 and shows as skipped, never as passed.
add_test(NAME toml.conformance
	COMMAND sh -c [=[
if [ ! -f "$1/grade.py" ]; then echo "toml-test suite not found at $1"; exit 77; fi
if ! command -v python3 >/dev/null 2>&1; then echo "python3 not found"; exit 77; fi
exec python3 "$1/grade.py" --tests "$1" -- "$2"
]=] toml-conformance ${RN_SHARED_DIR}/toml-test $<TARGET_FILE:toml-decode>)
set_tests_properties(toml.conformance PROPERTIES LABELS "toml;conformance" SKIP_RETURN_CODE 77
	TIMEOUT 600)
