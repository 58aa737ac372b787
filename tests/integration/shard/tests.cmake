# Sharded checks: `renacer check --shard K/N --results`, `renacer merge`, `golden update
# --shard`, and the sharded example workflow validated against GitHub Actions' schemas with
# @action-validator/cli (pinned in package-lock.json, installed with
# `npm ci --prefix tests/integration/shard`; without it the workflow case is skipped, 77).
foreach(case partition merge_equal stable errors golden balance_golden reports action workflow history)
	add_test(NAME shard.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/shard_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR})
	set_tests_properties(shard.${case} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
		TIMEOUT 300)
endforeach()
