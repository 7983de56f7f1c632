/* child.h — a client process the runner starts and ends (child.c): `sh -c
 * CMD` in a process group of its own, its standard streams on pipes, its
 * environment the runner's plus the caller's variables plus the reaper's
 * token (reap.h), so that nothing it starts outlives it. One way to start and
 * end a child for every target that runs one: adapters (target_adapter.c),
 * one-shot and persistent HTTP clients (target_http.c).
 * Not for: the protocols spoken over the pipes. */
#ifndef GT_RUNNER_CHILD_H
#define GT_RUNNER_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct gt_child {
    pid_t pid;     /* > 0 running; < 0 its -pid: exited and reaped, its group may linger; 0 none */
    int in;        /* our end of its stdin, -1 when it reads /dev/null */
    int out, err;  /* our ends of its stdout and stderr */
    char token[48]; /* GT_ADAPTER_ID_ENV: marks everything it starts */
} gt_child;

/* Start `command`. `env` holds "NAME=VALUE" strings that replace or add to
 * the runner's environment (NULL when `env_count` is 0). The environment is
 * built before fork(): the child only wires its streams and calls execve,
 * safe in a runner with other threads. With `with_stdin` false its stdin is
 * /dev/null. All our ends are close-on-exec. 0, or -1 with `err`. */
int gt_child_start(gt_child *child, const char *command, char *const *env, size_t env_count, bool with_stdin,
                   char *err, size_t err_len);

/* End it: when it still runs, kill it first (with everything it started,
 * even past setsid) when `kill_first`, else wait for it; then kill what is
 * left of its group and of its token's processes, reap them and close our
 * ends (each closed one set to -1). Returns its wait status, or -1 when it
 * was already reaped (pid < 0); nothing at all when pid is 0 (never started
 * or already ended). `child` is then empty (pid 0, ends -1). */
int gt_child_end(gt_child *child, bool kill_first);

#endif
