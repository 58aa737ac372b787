# CI integration: the GitHub mode of `renacer check` end to end, the github-action-benchmark
# JSON, the GitHub Action run in a simulated runner, and the generated man page.
# (tests/unit/runner/report/test_github.c, the unit test, is picked up by tests/CMakeLists.txt.)
# They need the example target (build/targets/example_work) and skip (77) without ptrace.
set(RN_GITHUB_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

add_test(NAME github.check_mode
	COMMAND sh ${RN_GITHUB_TEST_DIR}/check-github.sh ${CMAKE_BINARY_DIR})
add_test(NAME github.bench_json
	COMMAND sh ${RN_GITHUB_TEST_DIR}/bench-json.sh ${CMAKE_BINARY_DIR})
add_test(NAME github.action
	COMMAND sh ${RN_GITHUB_TEST_DIR}/action.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
add_test(NAME github.man_page
	COMMAND sh ${RN_GITHUB_TEST_DIR}/man-page.sh ${CMAKE_BINARY_DIR})
set_tests_properties(github.check_mode github.bench_json github.action github.man_page
	PROPERTIES LABELS "ci;integration" SKIP_RETURN_CODE 77)
# The action case installs this build; with RN_ACTION_BUILD=full it compiles renacer once more.
set_tests_properties(github.action PROPERTIES TIMEOUT 900)
add_test(NAME github.golden_paths
	COMMAND sh ${RN_GITHUB_TEST_DIR}/golden-paths.sh ${CMAKE_BINARY_DIR})
set_tests_properties(github.golden_paths PROPERTIES LABELS "ci;integration" SKIP_RETURN_CODE 77)
