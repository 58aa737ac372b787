# The README's reference tables (config keys, exit codes, verdicts, collectors) against the
# code's own lists (`renacer help config`, `renacer help tables`).
add_test(NAME docs.readme_tables
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/readme_tables.sh $<TARGET_FILE:renacer>
		${CMAKE_SOURCE_DIR}/README.md)
set_tests_properties(docs.readme_tables PROPERTIES LABELS docs)

# Who may include whom (runner/INTERNALS.md, "Layers"): no include of a layer above, and the
# event loop and the trace model include no specific collector's header.
add_test(NAME docs.layers COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/layers.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.layers PROPERTIES LABELS docs)

# docs/guide.md, the tutorial: every command of its sh blocks run in order in a scratch
# project, each exiting as the guide says (tests/docs/guide_test.py).
add_test(NAME docs.guide COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/guide_test.py
	${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.guide PROPERTIES LABELS "docs;integration" SKIP_RETURN_CODE 77
	TIMEOUT 300)
