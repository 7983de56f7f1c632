/* cmd_transform.c — placeholder until its owner lands the real command. */
#include <stdio.h>

#include "commands.h"

int gt_cmd_transform(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gauntlet transform: not built yet\n");
    return 2;
}
