/*
 * drivers_instructions.h - the parts of `renacer check` and `renacer golden update` that choose
 * each target's syscall driver (ptrace or eBPF) and count its instructions under Valgrind.
 */
#ifndef RN_DRIVERS_INSTRUCTIONS_H
#define RN_DRIVERS_INSTRUCTIONS_H

#include <stdbool.h>

#include "assertion.h"
#include "config.h"

#endif
