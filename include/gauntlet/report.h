/* report.h — report writers. Each formats one gt_run; none re-runs anything.
 *
 * Formats: console (human; colour only when `tty`), json (docs/report-json.md,
 * "gauntlet-report/1"), junit (JUnit XML). Writers return 0, or -1 on an I/O
 * error. */
#ifndef GAUNTLET_REPORT_H
#define GAUNTLET_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "gauntlet/run.h"

#define GT_REPORT_JSON_FORMAT "gauntlet-report/1"

int gt_report_console(FILE *out, const gt_run *run, bool tty);
int gt_report_json(FILE *out, const gt_run *run);
int gt_report_junit(FILE *out, const gt_run *run);

/* Writer by format name ("console", "json", "junit"); NULL when unknown. */
typedef int (*gt_report_writer)(FILE *out, const gt_run *run);
gt_report_writer gt_report_writer_for(const char *format);

#endif
