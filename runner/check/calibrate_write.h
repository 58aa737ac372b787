/*
 * calibrate_write.h - `renacer calibrate --write`: each target's same-job baseline tolerance
 * derived from its A/A pairs, written into renacer.toml.
 *
 * The tolerance of a target is the smallest fraction T of the base median at which the A/A
 * pairs (the target against itself, calibrate.h) would be judged as a check --baseline judges
 * them and read PASS: at every look of the design that the pairs reach (sequential.h), the
 * Walsh interval's lower bound stays at or below T (no look would FAIL), and at the last look
 * the upper bound is at or below T (the comparison ends PASS, not INCONCLUSIVE); the largest
 * over the time rows a check judges (wall_time, critical_path, cpu_time, gpu_busy), rounded up
 * to 0.1%. A smaller tolerance would make an unchanged program fail or stay undecided at the
 * chosen alpha.
 *
 * It is written as `baseline_tolerance = T` into the target's [[target]] table (replacing the
 * key and its comment when present, else after the table's last key), with the line above it
 *   # derived from N A/A pairs on <fingerprint summary>, <YYYY-MM-DD>
 * Every other line and comment of the file stays as it was; the file is replaced atomically.
 */
#ifndef RN_CALIBRATE_WRITE_H
#define RN_CALIBRATE_WRITE_H

#include <stddef.h>

#include "assertion.h"
#include "config.h"
#include "sequential.h"
#include "verdict.h"

#endif
