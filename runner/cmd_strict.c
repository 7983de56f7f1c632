/* cmd_strict.c — placeholder until its owner lands the real command. */
#include <stdio.h>

#include "commands.h"

int gt_cmd_strict(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gauntlet strict: not built yet\n");
    return 2;
}
