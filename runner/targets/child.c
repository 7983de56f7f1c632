/* child.c — start and end a client process (child.h). */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reap.h"
#include "spawn.h"

static void close_pair(int pair[2])
{
    if (pair[0] >= 0)
        close(pair[0]);
    if (pair[1] >= 0)
        close(pair[1]);
}

int gt_child_start(gt_child *child, const char *command, char *const *env, size_t env_count, bool with_stdin,
                   char *err, size_t err_len)
{
    int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if ((with_stdin && pipe2(in_pipe, O_CLOEXEC) != 0) || pipe2(out_pipe, O_CLOEXEC) != 0 ||
        pipe2(err_pipe, O_CLOEXEC) != 0) {
        snprintf(err, err_len, "pipe: %s", strerror(errno));
        close_pair(in_pipe), close_pair(out_pipe), close_pair(err_pipe);
        return -1;
    }
    int devnull = with_stdin ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!with_stdin && devnull < 0) {
        snprintf(err, err_len, "/dev/null: %s", strerror(errno));
        close_pair(out_pipe), close_pair(err_pipe);
        return -1;
    }
    gt_reaper_enable(); /* orphans of the child come back to us, not to init */
    gt_reaper_token(child->token, sizeof child->token);
    char **child_env = gt_reaper_env_with(child->token, env, env_count);
    pid_t pid = child_env ? fork() : -1;
    if (pid < 0) {
        snprintf(err, err_len, "fork: %s", child_env ? strerror(errno) : "out of memory");
        close_pair(in_pipe), close_pair(out_pipe), close_pair(err_pipe);
        if (devnull >= 0)
            close(devnull);
        gt_reaper_env_free(child_env);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (gt_child_stdio(with_stdin ? in_pipe[0] : devnull, out_pipe[1], err_pipe[1]) != 0)
            _exit(127);
        signal(SIGPIPE, SIG_DFL);
        char *const argv[] = {"sh", "-c", (char *)command, NULL};
        execve("/bin/sh", argv, child_env);
        _exit(127);
    }
    gt_reaper_env_free(child_env);
    setpgid(pid, pid);
    if (with_stdin)
        close(in_pipe[0]);
    else
        close(devnull);
    close(out_pipe[1]);
    close(err_pipe[1]);
    child->pid = pid;
    child->in = in_pipe[1];
    child->out = out_pipe[0];
    child->err = err_pipe[0];
    return 0;
}

/* waitpid, again when a signal interrupts it. */
static pid_t wait_for(pid_t pid, int *status, int flags)
{
    pid_t done;
    do
        done = waitpid(pid, status, flags);
    while (done < 0 && errno == EINTR);
    return done;
}

int gt_child_end(gt_child *child, bool kill_first)
{
    if (child->pid == 0)
        return -1; /* never started, or ended already (its fields may be zeroes) */
    /* our ends first: a child blocked writing to a full pipe gets EPIPE */
    int *fds[3] = {&child->in, &child->out, &child->err};
    for (int i = 0; i < 3; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    int status = -1;
    pid_t pid = child->pid;
    bool group = pid < 0; /* reaped before: its group may linger */
    if (pid > 0) {
        pid_t done = wait_for(pid, &status, WNOHANG);
        if (done == 0 && kill_first) {
            gt_reap_descendants(pid, child->token, true);
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        }
        if (done == 0)
            done = wait_for(pid, &status, 0);
        group = done == pid;
        if (done != pid)
            status = -1;
    }
    if (group)
        kill(pid > 0 ? -pid : pid, SIGKILL); /* what is left of its group */
    if (pid != 0)
        gt_reap_descendants(0, child->token, false); /* and those that left it (setsid), now ours */
    child->pid = 0;
    return status;
}
