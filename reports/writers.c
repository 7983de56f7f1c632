/* writers.c — the writer table: a report format's name (`--report
 * format:file`) to its writer function (gt_report_writer_for, report.h).
 * It calls every writer; no writer calls it. Not for: escaping
 * (report.c). */
#include <stddef.h>
#include <string.h>

#include "gauntlet/runner/report.h"

static int console_plain(FILE *out, const gt_run *run, const gt_report_info *info)
{
    return gt_report_console(out, run, info, false);
}

gt_report_writer gt_report_writer_for(const char *format)
{
    static const struct {
        const char *name;
        gt_report_writer writer;
    } writers[] = {
        {"console", console_plain}, {"json", gt_report_json},     {"junit", gt_report_junit},
        {"tap", gt_report_tap},     {"html", gt_report_html},     {"md", gt_report_markdown},
        {"markdown", gt_report_markdown}, {"badge", gt_report_badge}, {"svg", gt_report_badge_svg},
    };
    if (format == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
        if (strcmp(format, writers[i].name) == 0)
            return writers[i].writer;
    return NULL;
}
