/* target_wire.c — placeholder: the reference target does not run these cases yet. */
#include <stdio.h>

#include "reference_hooks.h"

int gt_reference_check_wire(const gt_case_input *input, gt_observed *observed, char *note, size_t note_len)
{
    (void)observed;
    snprintf(note, note_len, "the reference target does not implement gate '%s' yet", input->gate);
    return GT_CHECK_SKIPPED;
}
