/* reap.c — kill and reap everything an adapter started (reap.h).
 *
 * /proc gives each process's parent; the processes to end are the tree below
 * the adapter plus the runner's own children (orphans re-parented to the
 * subreaper) whose environment carries the adapter's token, and their trees.
 * They are stopped first and the scan repeated until it finds nothing new, so
 * a process forking meanwhile cannot slip out; then all are killed and the
 * ones re-parented to the runner reaped. Linux only, as the runner is. */
#include "reap.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Bounds: the processes one adapter may leave, and the scan rounds. */
#define REAP_MAX_PIDS 4096
#define REAP_MAX_ROUNDS 50

void gt_reaper_enable(void)
{
    static atomic_int enabled;
    if (atomic_exchange(&enabled, 1) == 0)
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

void gt_reaper_token(char *out, size_t out_len)
{
    static atomic_uint next;
    snprintf(out, out_len, "%ld.%u", (long)getpid(), atomic_fetch_add(&next, 1) + 1);
}

/* True when `entry` ("NAME=...") sets the variable `name` of `len` bytes. */
static bool sets(const char *entry, const char *name, size_t len)
{
    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

char **gt_reaper_env_with(const char *token, char *const *extra, size_t extra_count)
{
    size_t count = 0, prefix = strlen(GT_ADAPTER_ID_ENV);
    while (environ && environ[count])
        count++;
    char **env = calloc(count + extra_count + 2, sizeof *env);
    size_t len = prefix + 1 + strlen(token) + 1;
    char *mine = env ? malloc(len) : NULL;
    if (mine == NULL) {
        free(env);
        return NULL;
    }
    snprintf(mine, len, "%s=%s", GT_ADAPTER_ID_ENV, token);
    size_t used = 0;
    env[used++] = mine;
    for (size_t i = 0; i < count; i++) {
        bool replaced = sets(environ[i], GT_ADAPTER_ID_ENV, prefix);
        const char *eq = strchr(environ[i], '=');
        size_t name_len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        for (size_t k = 0; k < extra_count && !replaced; k++)
            replaced = sets(extra[k], environ[i], name_len);
        if (!replaced)
            env[used++] = environ[i];
    }
    for (size_t k = 0; k < extra_count; k++) {
        const char *eq = strchr(extra[k], '=');
        bool skip = eq == NULL || sets(extra[k], GT_ADAPTER_ID_ENV, prefix);
        for (size_t later = k + 1; later < extra_count && !skip; later++)
            skip = sets(extra[later], extra[k], (size_t)(eq - extra[k])); /* the later one wins */
        if (!skip)
            env[used++] = extra[k];
    }
    env[used] = NULL;
    return env;
}

char **gt_reaper_env(const char *token)
{
    return gt_reaper_env_with(token, NULL, 0);
}

void gt_reaper_env_free(char **env)
{
    if (env) {
        free(env[0]);
        free(env);
    }
}

typedef struct proc_entry {
    pid_t pid, ppid;
} proc_entry;

/* Every process's parent, from /proc/<pid>/stat. Returns the count. */
static size_t scan_processes(proc_entry *out, size_t cap)
{
    DIR *dir = opendir("/proc");
    if (dir == NULL)
        return 0;
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < cap) {
        char *end;
        long pid = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 0)
            continue;
        char path[64], text[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t got = read(fd, text, sizeof text - 1);
        close(fd);
        if (got <= 0)
            continue;
        text[got] = '\0';
        const char *paren = strrchr(text, ')'); /* the command name may hold spaces and parentheses */
        char state;
        long ppid;
        if (paren == NULL || sscanf(paren + 1, " %c %ld", &state, &ppid) != 2)
            continue;
        out[count].pid = (pid_t)pid;
        out[count].ppid = (pid_t)ppid;
        count++;
    }
    closedir(dir);
    return count;
}

/* Does process `pid` carry GT_ADAPTER_ID_ENV=`token`? */
static bool carries_token(pid_t pid, const char *token)
{
    char path[64], needle[128];
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
    int needle_len = snprintf(needle, sizeof needle, "%s=%s", GT_ADAPTER_ID_ENV, token);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    static const size_t max = 1u << 20; /* an environment is read up to 1 MiB */
    char *text = malloc(max);
    size_t used = 0;
    ssize_t got;
    while (text && used < max && (got = read(fd, text + used, max - used)) > 0)
        used += (size_t)got;
    close(fd);
    bool found = false;
    for (size_t at = 0; text && at < used && !found;) {
        size_t len = strnlen(text + at, used - at);
        found = len == (size_t)needle_len && memcmp(text + at, needle, len) == 0;
        at += len + 1;
    }
    free(text);
    return found;
}

static bool listed(const pid_t *pids, size_t count, pid_t pid)
{
    for (size_t i = 0; i < count; i++)
        if (pids[i] == pid)
            return true;
    return false;
}

static void pause_ms(long ms)
{
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

size_t gt_reap_descendants(pid_t root, const char *token, bool kill_root)
{
    proc_entry *procs = malloc(REAP_MAX_PIDS * sizeof *procs);
    pid_t *found = malloc(REAP_MAX_PIDS * sizeof *found);
    if (procs == NULL || found == NULL) {
        free(procs);
        free(found);
        if (kill_root && root > 0)
            kill(root, SIGKILL);
        return 0;
    }
    pid_t self = getpid();
    size_t count = 0;
    if (kill_root && root > 0)
        kill(root, SIGSTOP);
    for (int round = 0; round < REAP_MAX_ROUNDS; round++) {
        size_t total = scan_processes(procs, REAP_MAX_PIDS), before = count;
        /* the roots: the adapter, and orphans re-parented to us that carry its token */
        for (size_t i = 0; i < total && count < REAP_MAX_PIDS; i++)
            if (procs[i].ppid == self && procs[i].pid != root && !listed(found, count, procs[i].pid) && token &&
                carries_token(procs[i].pid, token))
                found[count++] = procs[i].pid;
        /* their trees, to a fixed point */
        bool grew = true;
        while (grew && count < REAP_MAX_PIDS) {
            grew = false;
            for (size_t i = 0; i < total && count < REAP_MAX_PIDS; i++)
                if (!listed(found, count, procs[i].pid) &&
                    ((root > 0 && procs[i].ppid == root) || listed(found, count, procs[i].ppid))) {
                    found[count++] = procs[i].pid;
                    grew = true;
                }
        }
        for (size_t i = before; i < count; i++)
            kill(found[i], SIGSTOP); /* a stopped process forks no more */
        if (count == before)
            break;
    }
    for (size_t i = 0; i < count; i++)
        kill(found[i], SIGKILL);
    if (kill_root && root > 0)
        kill(root, SIGKILL);
    /* reap the ones re-parented to us; the others are their parents' (also killed) */
    size_t left = count;
    for (int tick = 0; tick < 400 && left > 0; tick++) { /* 2 s at most */
        left = 0;
        for (size_t i = 0; i < count; i++) {
            if (found[i] == 0)
                continue;
            pid_t done = waitpid(found[i], NULL, WNOHANG);
            if (done == found[i] || (done < 0 && errno == ECHILD && kill(found[i], 0) != 0))
                found[i] = 0;
            else
                left++;
        }
        if (left > 0)
            pause_ms(5);
    }
    free(procs);
    free(found);
    return count;
}

/* Does process `pid` hold a descriptor on the pipe whose inode is `inode`? */
static bool holds_pipe(pid_t pid, unsigned long inode)
{
    char dir_path[64], want[64];
    snprintf(dir_path, sizeof dir_path, "/proc/%ld/fd", (long)pid);
    snprintf(want, sizeof want, "pipe:[%lu]", inode);
    DIR *dir = opendir(dir_path);
    if (dir == NULL)
        return false;
    bool found = false;
    struct dirent *entry;
    while (!found && (entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char link_path[352], target[64];
        snprintf(link_path, sizeof link_path, "%s/%s", dir_path, entry->d_name);
        ssize_t got = readlink(link_path, target, sizeof target - 1);
        if (got > 0) {
            target[got] = '\0';
            found = strcmp(target, want) == 0;
        }
    }
    closedir(dir);
    return found;
}

/* Is `pid` blocked waiting for a child (a wrapper shell)? */
static bool waiting_for_child(pid_t pid)
{
    char path[64], wchan[64] = "";
    snprintf(path, sizeof path, "/proc/%ld/wchan", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t got = read(fd, wchan, sizeof wchan - 1);
    close(fd);
    wchan[got > 0 ? got : 0] = '\0';
    return strcmp(wchan, "do_wait") == 0 || strcmp(wchan, "kernel_wait4") == 0;
}

bool gt_reap_pipe_left_to_root(pid_t root, unsigned long inode)
{
    if (!waiting_for_child(root)) /* root is the adapter itself, or busy: its own copy counts */
        return false;
    proc_entry *procs = malloc(REAP_MAX_PIDS * sizeof *procs);
    pid_t *below = malloc(REAP_MAX_PIDS * sizeof *below);
    if (procs == NULL || below == NULL) {
        free(procs);
        free(below);
        return false;
    }
    size_t total = scan_processes(procs, REAP_MAX_PIDS), count = 0;
    bool grew = true;
    while (grew && count < REAP_MAX_PIDS) {
        grew = false;
        for (size_t i = 0; i < total && count < REAP_MAX_PIDS; i++)
            if (!listed(below, count, procs[i].pid) &&
                (procs[i].ppid == root || listed(below, count, procs[i].ppid))) {
                below[count++] = procs[i].pid;
                grew = true;
            }
    }
    bool held_below = false;
    for (size_t i = 0; i < count && !held_below; i++)
        held_below = holds_pipe(below[i], inode);
    free(procs);
    free(below);
    return count > 0 && !held_below;
}
