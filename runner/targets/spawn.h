/* spawn.h — wiring a forked child's standard streams, safe when the parent
 * itself runs with fd 0, 1 or 2 closed (CI may start gauntlet with no
 * standard input: a pipe then gets fd 0, and dup2(0, 0) would neither move it
 * nor clear its close-on-exec flag, so the child would start with no stdin).
 * Not for: anything in the parent; call only between fork() and exec(). */
#ifndef GT_RUNNER_SPAWN_H
#define GT_RUNNER_SPAWN_H

#include <fcntl.h>
#include <unistd.h>

/* In the child: make `in`, `out` and `err` its fds 0, 1 and 2 (each copied
 * above 2 first, so no source is overwritten by an earlier target).
 * Returns 0, or -1 when a copy fails. */
static inline int gt_child_stdio(int in, int out, int err)
{
    int src[3] = {in, out, err}, moved[3];
    for (int i = 0; i < 3; i++)
        if ((moved[i] = fcntl(src[i], F_DUPFD, 3)) < 0)
            return -1;
    for (int i = 0; i < 3; i++)
        if (dup2(moved[i], i) < 0)
            return -1;
    for (int i = 0; i < 3; i++)
        close(moved[i]);
    return 0;
}

/* At start-up: open /dev/null on any of fds 0, 1, 2 that is closed, so no
 * later open() or pipe() is handed a standard stream's number. */
static inline void gt_std_fds_open(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int null_fd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (null_fd >= 0 && null_fd != fd) {
                dup2(null_fd, fd);
                close(null_fd);
            }
        }
}

#endif
