/* main.c — the gauntlet command-line entry point (the table is in cli.c). */
#include "cli.h"
#include "runner/targets/spawn.h"

int main(int argc, char **argv)
{
    gt_std_fds_open();
    return gt_cli_main(argc, argv);
}
