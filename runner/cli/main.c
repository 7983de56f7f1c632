/* main.c — the gauntlet command-line entry point (the table is in cli.c). */
#include "cli.h"

int main(int argc, char **argv)
{
    return gt_cli_main(argc, argv);
}
