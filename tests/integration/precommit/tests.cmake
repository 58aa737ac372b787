# pre-commit hooks (.pre-commit-hooks.yaml) run by the real pre-commit with `try-repo` in a
# scratch repository; skipped (77) when pre-commit is not installed.
add_test(NAME precommit.try_repo
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/try-repo.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(precommit.try_repo PROPERTIES LABELS "ci;integration" SKIP_RETURN_CODE 77
	TIMEOUT 300)
