/* reap.h — nothing an adapter starts outlives it (reap.c).
 *
 * The runner makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so an
 * adapter's orphaned descendants are re-parented to it rather than to init,
 * even one that left the adapter's process group with setsid(). Each adapter
 * runs with GAUNTLET_ADAPTER_ID=<token> in its environment; at the end of its
 * life every process below it (by parent links, or re-parented to the runner
 * with that token) is stopped, killed and reaped.
 * Not for: the adapter protocol (target_adapter.c). */
#ifndef GT_RUNNER_REAP_H
#define GT_RUNNER_REAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The environment variable that marks an adapter's processes. */
#define GT_ADAPTER_ID_ENV "GAUNTLET_ADAPTER_ID"

/* Make the calling process a child subreaper (once; later calls do nothing). */
void gt_reaper_enable(void);

/* A fresh token for one adapter start ("<runner pid>.<n>") into `out`. */
void gt_reaper_token(char *out, size_t out_len);

/* A copy of `environ` with GT_ADAPTER_ID_ENV=`token` (any earlier value
 * replaced); malloc'd, free with gt_reaper_env_free. NULL when out of memory.
 * Built before fork(): the child only calls execve with it. */
char **gt_reaper_env(const char *token);
/* The same with each "NAME=VALUE" of `extra` added, replacing the runner's
 * own NAME (GT_ADAPTER_ID_ENV is never replaced; an entry without '=' is
 * ignored). The strings of `extra` are borrowed: keep them until exec. */
char **gt_reaper_env_with(const char *token, char *const *extra, size_t extra_count);
void gt_reaper_env_free(char **env);

/* Stop (SIGSTOP, so none can fork meanwhile), kill (SIGKILL) and reap every
 * descendant of `root` and every child of this process carrying `token`;
 * `root` itself is killed when `kill_root`, never reaped (its caller waits
 * for it to learn how it ended). Bounded: about 2 s at most. Returns how
 * many processes were killed. */
size_t gt_reap_descendants(pid_t root, const char *token, bool kill_root);

/* True when `root` is a wrapper blocked waiting for its child (`sh -c`
 * keeps its own copy of the adapter's stdout while it waits) and none of
 * its descendants holds the pipe whose inode is `inode` any more: the
 * adapter below it closed its stdout. */
bool gt_reap_pipe_left_to_root(pid_t root, unsigned long inode);

#endif
