# The README's reference tables (config keys, exit codes, verdicts, collectors) against the
# code's own lists (`renacer help config`, `renacer help tables`).
add_test(NAME docs.readme_tables
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/readme_tables.sh $<TARGET_FILE:renacer>
		${CMAKE_SOURCE_DIR}/README.md)
set_tests_properties(docs.readme_tables PROPERTIES LABELS docs)

# Who may include whom (runner/INTERNALS.md, "Layers"), includes resolved by path: no include
# of a layer above, folder-private headers stay in their folder, specific collectors are
# reached only by the registries and the commands through their public header. The self-test
# plants one breach of each kind in a scratch copy and checks it is reported.
add_test(NAME docs.layers COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/layers.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.layers PROPERTIES LABELS docs)
add_test(NAME docs.layers_selftest COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/layers.py --self-test)
set_tests_properties(docs.layers_selftest PROPERTIES LABELS docs)

# docs/guide.md, the tutorial: every command of its sh blocks run in order in a scratch
# project, each exiting as the guide says (guide_test.py).
add_test(NAME docs.guide COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/guide_test.py
	${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.guide PROPERTIES LABELS "docs;integration" SKIP_RETURN_CODE 77
	TIMEOUT 300)
