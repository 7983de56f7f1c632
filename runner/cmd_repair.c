/* cmd_repair.c — placeholder until its owner lands the real command. */
#include <stdio.h>

#include "commands.h"

int gt_cmd_repair(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gauntlet repair: not built yet\n");
    return 2;
}
