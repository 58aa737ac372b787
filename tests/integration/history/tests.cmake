# The history store end to end (history_test.sh CASE): the same suite against a
# temporary SQLite file and a real PostgreSQL cluster created by the test; bad stores; and the
# report page in headless Chromium (report_page.sh: real checks;
# report_browser.sh: hover, click, compare, injection, zoom with DevTools mouse events).
foreach(case suite-sqlite suite-postgres roundtrip quality bad-input import-signal)
	add_test(NAME history.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/history_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR})
	set_tests_properties(history.${case} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
		TIMEOUT 300)
endforeach()
add_test(NAME history.report_page
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/report_page.sh ${CMAKE_BINARY_DIR})
set_tests_properties(history.report_page PROPERTIES LABELS integration SKIP_RETURN_CODE 77
	TIMEOUT 300)
add_test(NAME history.report_browser
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/report_browser.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(history.report_browser PROPERTIES LABELS integration SKIP_RETURN_CODE 77
	TIMEOUT 300)
