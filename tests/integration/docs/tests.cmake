# The reference tables the README links to (config keys in docs/config.md, exit codes and
# verdicts in docs/metrics.md, collectors in docs/collectors.md) against the code's own lists
# (`renacer help config`, `renacer help tables`); planted drifts (a renumbered exit code, a
# missing row of each table) must fail.
add_test(NAME docs.readme_tables
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/readme_tables.sh $<TARGET_FILE:renacer>
		${CMAKE_SOURCE_DIR}/docs)
set_tests_properties(docs.readme_tables PROPERTIES LABELS docs)

# Who may include whom (docs/layout.md, "Layers"), includes resolved by path: no include
# of a layer above, folder-private headers stay in their folder, specific collectors are
# reached only by the registries and the commands through their public header. The self-test
# plants one breach of each kind in a scratch copy and checks it is reported.
add_test(NAME docs.layers COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/layers.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.layers PROPERTIES LABELS docs)
add_test(NAME docs.layers_selftest COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/layers.py --self-test)
set_tests_properties(docs.layers_selftest PROPERTIES LABELS docs)
# The same order between the layer libraries, read from `cmake --graphviz` of the tree
# configured in a scratch directory: each layer links the one below it and none links upward.
add_test(NAME docs.layer_links COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/layer_links.py
	${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/layer_links
	-DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DRN_WITH_VULKAN=${RN_WITH_VULKAN}
	-DRN_WITH_CUDA=${RN_WITH_CUDA} -DRN_WITH_EBPF=${RN_WITH_EBPF})
set_tests_properties(docs.layer_links PROPERTIES LABELS docs)
add_test(NAME docs.layer_links_selftest
	COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/layer_links.py --self-test)
set_tests_properties(docs.layer_links_selftest PROPERTIES LABELS docs)

# docs/guide.md, the tutorial: every command of its sh blocks run in order in a scratch
# project, each exiting as the guide says (guide_test.py).
add_test(NAME docs.guide COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/guide_test.py
	${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.guide PROPERTIES LABELS "docs;integration" SKIP_RETURN_CODE 77
	TIMEOUT 300)

# README.md's quick start, the same way: its blocks after "## Quick start" run in order in a
# scratch project (the two opening commands, which set up a machine, are not run).
add_test(NAME docs.quickstart COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/guide_test.py
	${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} README.md "## Quick start")
# It records a golden trace and checks the unchanged program against it seconds later, as a
# reader does, alone on the machine: a test beside it under ctest -j2 once moved the program's
# cpu_time +80% (33.8 -> 61.1 ms) with CPU pressure at 4% and the speed probe at 1.004x, which
# neither condition catches, and the golden rows failed. RUN_SERIAL gives it the machine alone.
set_tests_properties(docs.quickstart PROPERTIES LABELS "docs;integration" SKIP_RETURN_CODE 77
	TIMEOUT 300 RUN_SERIAL TRUE)

# Every relative link of README.md and docs/*.md names an existing file, and an anchor into a
# Markdown page one of its headings (tests/integration/docs/links.py); the self-test plants a missing file
# and a missing anchor and checks both are reported.
add_test(NAME docs.links COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/links.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.links PROPERTIES LABELS docs)
add_test(NAME docs.links_selftest COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/links.py --self-test)
set_tests_properties(docs.links_selftest PROPERTIES LABELS docs)

# No dead path of this tree in prose (git's lint-gitlink): the Markdown pages and the C
# comments name only files that exist (tests/integration/docs/paths.py); the self-test plants
# a dead path in a page and in a comment of a scratch tree and checks both are reported.
add_test(NAME docs.paths COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/paths.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.paths PROPERTIES LABELS docs)
add_test(NAME docs.paths_selftest COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/paths.py --self-test)
set_tests_properties(docs.paths_selftest PROPERTIES LABELS docs)

# runner/INTERNALS.md stays on one screen (at most 60 lines of at most 100 columns): the data
# flow and the event loop; the detail belongs in docs/layout.md.
add_test(NAME docs.internals_screen COMMAND sh -c [=[
lines=$(wc -l <"$1")
wide=$(awk 'length > 100 { n++ } END { print n + 0 }' "$1")
if [ "$lines" -gt 60 ] || [ "$wide" -gt 0 ]; then
	echo "FAIL: $1 has $lines lines ($wide over 100 columns); one screen is 60 lines of 100"
	exit 1
fi
echo "ok: $1 has $lines lines"
]=] internals_screen ${CMAKE_SOURCE_DIR}/runner/INTERNALS.md)
set_tests_properties(docs.internals_screen PROPERTIES LABELS docs)

# No function of runner/, collectors/, util/ or assertions/ over 100 lines or a complexity of 30
# as pmccabe counts them (ci/complexity.sh prints each offender as file:line: function: N
# lines, complexity M); skipped without pmccabe. The self-test plants an over-long and an
# over-complex function beside two on the limits and checks that only the two are reported.
add_test(NAME docs.complexity COMMAND sh ${CMAKE_SOURCE_DIR}/ci/complexity.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.complexity PROPERTIES LABELS docs SKIP_RETURN_CODE 77)
add_test(NAME docs.complexity_selftest COMMAND sh ${CMAKE_SOURCE_DIR}/ci/complexity.sh --self-test)
set_tests_properties(docs.complexity_selftest PROPERTIES LABELS docs SKIP_RETURN_CODE 77)
# A config key's default number is typed once, in the constant the code assigns: the doc
# strings of runner/input/config.h's key tables print it with RN_CFG_STR (defaults_once.py);
# the self-test plants typed defaults in a scratch copy and checks they are reported.
add_test(NAME docs.defaults_once
	COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/defaults_once.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.defaults_once PROPERTIES LABELS docs)
add_test(NAME docs.defaults_once_selftest
	COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/defaults_once.py --self-test)
set_tests_properties(docs.defaults_once_selftest PROPERTIES LABELS docs)
