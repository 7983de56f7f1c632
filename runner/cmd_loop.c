/* cmd_loop.c — placeholder until its owner lands the real command. */
#include <stdio.h>

#include "commands.h"

int gt_cmd_loop(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gauntlet loop: not built yet\n");
    return 2;
}
