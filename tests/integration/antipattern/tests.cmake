# Anti-pattern integration tests: each tests/targets/ap_<detector>.c runs under the real
# ptrace collector with the span spool enabled (ap_driver), and its detector must fire with
# high confidence; each ap_<detector>_ok.c near miss must stay below 0.5. Tests exit 77 (skip)
# where ptrace is not permitted.
add_executable(ap_driver ${CMAKE_CURRENT_LIST_DIR}/ap_driver.c)
target_link_libraries(ap_driver PRIVATE rn_assertions)
# The detector table is private to assertions/: included by its path in the tree.
target_include_directories(ap_driver PRIVATE ${CMAKE_SOURCE_DIR})
set_target_properties(ap_driver PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
rn_sanitize(ap_driver)

# target file name -> detector, and the confidence its positive target must reach
set(RN_AP_CASES
	"godprocess:GodProcess:0.8"
	"tightloop:TightLoop:0.8"
	"smallio:SmallIO:0.8"
	"redundantio:RedundantIO:0.8"
	"errorstorm:ErrorStorm:0.8"
	"syncstorm:SyncStorm:0.8"
	"memorychurn:MemoryChurn:0.8")

function(rn_ap_test name)
	add_test(NAME antipattern.${name} COMMAND ap_driver ${ARGN})
	set_tests_properties(antipattern.${name} PROPERTIES LABELS "antipattern;integration"
		SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "TMPDIR=${CMAKE_BINARY_DIR}")
endfunction()

foreach(case ${RN_AP_CASES})
	string(REPLACE ":" ";" parts ${case})
	list(GET parts 0 file)
	list(GET parts 1 det)
	list(GET parts 2 min)
	rn_ap_test(${file} --expect "${det}>=${min}" -- $<TARGET_FILE:target_ap_${file}>)
	rn_ap_test(${file}_ok --expect "${det}<0.5" -- $<TARGET_FILE:target_ap_${file}_ok>)
endforeach()

# Without GPU spans PcieBottleneck is NO DATA (never a pass), under either spelling.
rn_ap_test(pcie_no_gpu --expect "PCIeBottleneck=nodata" --expect "PcieBottleneck=nodata"
	-- $<TARGET_FILE:target_ap_tightloop_ok>)
# Without the spool: statistics still show the error storm; sizes and paths are NO DATA.
rn_ap_test(no_spool --no-spool --expect "ErrorStorm>=0.8" --expect "SmallIO=nodata"
	--expect "RedundantIO=nodata" --expect "TightLoop=nodata"
	-- $<TARGET_FILE:target_ap_errorstorm>)

# The CLI face: renacer trace --anti-patterns names the detection after the -c summary.
add_test(NAME antipattern.trace_cli
	COMMAND sh -c "$<TARGET_FILE:renacer> trace -f -c --anti-patterns -o \"$1\" -- \"$2\" && grep -Eq '^TightLoop +confidence (0\\.[89]|1\\.00)' \"$1\" && grep -q '% time' \"$1\""
		sh ${CMAKE_BINARY_DIR}/ap-trace-cli.txt $<TARGET_FILE:target_ap_tightloop>)
set_tests_properties(antipattern.trace_cli PROPERTIES LABELS "antipattern;integration" TIMEOUT 120)

# Evidence names the caller: SmallIO's writes are made by main() of ap_smallio.c, built with
# symbols and frame pointers (tests/targets/tests.cmake); its DWARF gives the file:line.
add_test(NAME antipattern.caller_cli
	COMMAND sh -c "$<TARGET_FILE:renacer> trace -f -c --anti-patterns -o \"$1\" -- \"$2\" && grep -Eq '^ +called from main \\([^ ;]*ap_smallio\\.c:[0-9]+; ap_smallio\\+0x[0-9a-f]+\\): 20000 of 20000 small writes' \"$1\""
		sh ${CMAKE_BINARY_DIR}/ap-caller-cli.txt $<TARGET_FILE:target_ap_smallio>)
set_tests_properties(antipattern.caller_cli PROPERTIES LABELS "antipattern;integration"
	TIMEOUT 120 ENVIRONMENT "TMPDIR=${CMAKE_BINARY_DIR}")
