# What renacer needs from the dynamic loader at start (needed.sh): never libcurl,
# which is loaded on the first OTLP export, and none of the libraries linked from their
# static archives (RN_STATIC_DEPS). Every start pays for each shared library it names.
add_test(NAME build.needed_libraries
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/needed.sh $<TARGET_FILE:renacer> libcurl libpq
		${RN_STATIC_ARCHIVES})
set_tests_properties(build.needed_libraries PROPERTIES LABELS integration SKIP_RETURN_CODE 77)

# A collector whose build dependency is missing is left out with a note, never a failed build
# (the GitHub Action's cold job on Ubuntu, whose bpftool is a wrapper that does not run without
# the kernel's linux-tools): a scratch configure with a bpftool that fails must succeed and
# say that the eBPF driver is built as its stub, and why.
add_test(NAME build.ebpf_stub_note COMMAND sh -c [=[
out=$("$1" -S "$2" -B "$3" -DRN_BUILD_TESTS=OFF -DRN_WITH_VULKAN=OFF -DRN_WITH_CUDA=OFF \
	-DRN_WITH_EBPF=AUTO -DRN_BPFTOOL=/bin/false -DCMAKE_C_COMPILER="$4" 2>&1)
rc=$?
rm -rf "$3"
want="eBPF driver: bpftool at /bin/false does not run, building the stub"
if [ $rc -ne 0 ]; then echo "$out"; echo "FAIL: configure exited $rc"; exit 1; fi
case $out in
*"$want"*) echo "ok: $want" ;;
*) echo "$out"; echo "FAIL: no note '$want'"; exit 1 ;;
esac
]=] ebpf_stub_note ${CMAKE_COMMAND} ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/ebpf_stub_note
	${CMAKE_C_COMPILER})
set_tests_properties(build.ebpf_stub_note PROPERTIES LABELS integration)
