# The install path: cpack's .deb and tarball from this build, the .deb unpacked with dpkg-deb
# (no root), `renacer init -- /bin/ls` and `renacer check` from the unpacked tree; lintian
# on the .deb, its stripped binaries and debug package, no RUNPATH, purge-clean removal with
# dpkg in a scratch root, and the bash/zsh/fish completion it installs.
add_test(NAME install.deb
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${CMAKE_BINARY_DIR})
set_tests_properties(install.deb PROPERTIES LABELS install SKIP_RETURN_CODE 77 TIMEOUT 600
	RUN_SERIAL TRUE)

# Shell completion written from the commands table (`renacer completion bash|zsh|fish`): every
# command of --help and every option of each command's help is completed.
add_test(NAME install.completion
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/completion_test.sh $<TARGET_FILE:renacer>)
set_tests_properties(install.completion PROPERTIES LABELS install)
