/* reference_hooks.h — how the `reference` target hands a case to the layer
 * that owns its gate. runner/targets/target_reference.c runs syntax and structure
 * itself (through reference/pipeline.c) and calls these for the rest. Each
 * returns GT_CHECK_DONE, GT_CHECK_SKIPPED or GT_CHECK_ERROR like a target's
 * check and fills `observed` (verdict, gate, reason, per-gate status, and for
 * loop/stream cases subtype, accounting, output_json = terminal envelope). */
#ifndef GT_REFERENCE_HOOKS_H
#define GT_REFERENCE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/runner/run.h"
#include "gauntlet/schema.h"

/* gate "loop" and "stream": runner/targets/target_loop.c */
int gt_reference_check_loop(const gt_case_input *input, gt_observed *observed, char *note, size_t note_len);
/* Map a loop result onto an observation (verdict, per-gate status, subtype,
 * accounting, envelope, transcript): the one mapping shared by the in-process
 * and the over-HTTP reference. Returns 0, or -1 when out of memory. */
struct gt_loop_result;
int gt_reference_loop_observed(const struct gt_loop_result *result, gt_observed *observed);
/* gate "wire": runner/targets/target_wire.c */
int gt_reference_check_wire(const gt_case_input *input, gt_observed *observed, char *note, size_t note_len);
/* gates "semantic" and "policy" (and repair cases): runner/targets/target_gates.c */
int gt_reference_check_gates(const gt_case_input *input, gt_observed *observed, char *note, size_t note_len);

/* Give a validation the per-case deadline (--timeout, as for adapters). */
void gt_reference_arm_deadline(gt_schema_errors *errors);

/* When a validation stopped at its deadline: fill `note` ("reference: timed
 * out after 10000 ms ...") and return true; the case is an error, as an
 * adapter's timeout is. */
bool gt_reference_timed_out(const gt_schema_errors *errors, char *note, size_t note_len);

#endif
