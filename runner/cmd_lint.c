/* cmd_lint.c — placeholder until its owner lands the real command. */
#include <stdio.h>

#include "commands.h"

int gt_cmd_lint(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gauntlet lint: not built yet\n");
    return 2;
}
