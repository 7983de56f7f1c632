/* timer.c — connections parked until a deadline (mock_timer.h).
 *
 * One thread, one small array of (deadline, connection) under a mutex: only
 * faulted turns park, so the array holds a handful of entries and a linear
 * scan is cheaper than a heap. The array grows and never shrinks, so a long
 * run of faulted requests allocates nothing after the first few. Not for:
 * deciding how long to wait (faults.c, server.c). */
#include "mock_timer.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct parked {
    long long due_ms;
    struct MHD_Connection *connection;
} parked;

struct mock_timer {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* CLOCK_MONOTONIC */
    pthread_t thread;
    bool running, stopping;
    parked *entries;
    size_t count, cap;
};

long long mock_timer_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Resume the entries whose deadline passed; the earliest deadline left, or -1. */
static long long resume_due(mock_timer *timer, long long now)
{
    long long next = -1;
    size_t kept = 0;
    for (size_t i = 0; i < timer->count; i++) {
        parked entry = timer->entries[i];
        if (timer->stopping || entry.due_ms <= now) {
            MHD_resume_connection(entry.connection);
            continue;
        }
        if (next < 0 || entry.due_ms < next)
            next = entry.due_ms;
        timer->entries[kept++] = entry; /* order kept: equal deadlines resume in park order */
    }
    timer->count = kept;
    return next;
}

static void *run(void *arg)
{
    mock_timer *timer = arg;
    pthread_mutex_lock(&timer->lock);
    while (!timer->stopping) {
        long long next = resume_due(timer, mock_timer_now_ms());
        if (next < 0) {
            pthread_cond_wait(&timer->wake, &timer->lock);
            continue;
        }
        struct timespec until = {(time_t)(next / 1000), (long)(next % 1000) * 1000000L};
        pthread_cond_timedwait(&timer->wake, &timer->lock, &until);
    }
    pthread_mutex_unlock(&timer->lock);
    return NULL;
}

mock_timer *mock_timer_new(void)
{
    mock_timer *timer = calloc(1, sizeof *timer);
    if (timer == NULL)
        return NULL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&timer->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&timer->lock, NULL);
    if (pthread_create(&timer->thread, NULL, run, timer) != 0) {
        mock_timer_free(timer);
        return NULL;
    }
    timer->running = true;
    return timer;
}

bool mock_timer_park(mock_timer *timer, struct MHD_Connection *connection, long ms)
{
    pthread_mutex_lock(&timer->lock);
    if (timer->stopping) {
        pthread_mutex_unlock(&timer->lock);
        return false;
    }
    if (timer->count == timer->cap) {
        size_t cap = timer->cap ? timer->cap * 2 : 16;
        parked *grown = realloc(timer->entries, cap * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&timer->lock);
            return false;
        }
        timer->entries = grown;
        timer->cap = cap;
    }
    /* suspended under the lock: the timer thread cannot resume it before it is suspended */
    MHD_suspend_connection(connection);
    timer->entries[timer->count++] = (parked){mock_timer_now_ms() + (ms > 0 ? ms : 0), connection};
    pthread_cond_signal(&timer->wake);
    pthread_mutex_unlock(&timer->lock);
    return true;
}

void mock_timer_stop(mock_timer *timer)
{
    if (timer == NULL)
        return;
    pthread_mutex_lock(&timer->lock);
    timer->stopping = true;
    resume_due(timer, 0);
    pthread_cond_signal(&timer->wake);
    pthread_mutex_unlock(&timer->lock);
}

void mock_timer_free(mock_timer *timer)
{
    if (timer == NULL)
        return;
    mock_timer_stop(timer);
    if (timer->running)
        pthread_join(timer->thread, NULL);
    free(timer->entries);
    pthread_cond_destroy(&timer->wake);
    pthread_mutex_destroy(&timer->lock);
    free(timer);
}
