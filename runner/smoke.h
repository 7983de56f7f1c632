/* smoke.h — play one built-in, always-valid case through a target before a
 * run trusts it (smoke.c). */
#ifndef GT_SMOKE_H
#define GT_SMOKE_H

#include <stdbool.h>
#include <stdio.h>

/* True for the targets a run smokes first: an adapter or an http client
 * (anything gauntlet did not build itself). */
bool gt_smoke_wanted(const char *target_spec);

/* Open `target_spec`, play the built-in smoke cases until one is not skipped.
 * 0 when the target produced a verdict (a line "smoke: ok..." on `out`), -1
 * when it could not (one paragraph on `err`: what ran, how it ended, its
 * stderr tail, the likely fix). */
int gt_smoke_run(const char *target_spec, FILE *out, FILE *err);
/* gt_smoke_run that also leaves the failure in one line in `why` (may be
 * NULL): "<smoke case>: <note>" or the open error. */
int gt_smoke_run_why(const char *target_spec, FILE *out /* NULL: quiet */, FILE *err, char *why, size_t why_len);

struct gt_corpus;
struct gt_run;
/* After a failed smoke: a run of `corpus` in which every case is an error
 * saying so (`why`), named after `target_spec`, for the reports the command
 * was asked to write, judged on `profiles` (0: core, what a target that
 * states none claims). Free with gt_run_free; NULL when out of memory. */
struct gt_run *gt_smoke_failed_run(const struct gt_corpus *corpus, const char *target_spec, const char *why,
                                   unsigned profiles);

#endif
