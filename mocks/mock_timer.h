/* mock_timer.h — connections parked until a deadline (timer.c): a turn's
 * latency, the pause between drip pieces and the linger before a cut.
 *
 * The server runs a few event-loop threads (libmicrohttpd's thread pool), so
 * a fault must never sleep in one: that would stall every other connection
 * of the thread. Instead the connection is suspended and one timer thread
 * resumes it when its deadline passes; libmicrohttpd then calls the handler
 * or the content reader again. Not for: what a fault does (faults.c). */
#ifndef GT_MOCK_TIMER_H
#define GT_MOCK_TIMER_H

#include <microhttpd.h>
#include <stdbool.h>

typedef struct mock_timer mock_timer;

/* A timer with its thread running; NULL when out of resources. Free it
 * after the daemon stopped (mock_timer_stop first). */
mock_timer *mock_timer_new(void);
void mock_timer_free(mock_timer *timer);

/* Suspend `connection` and resume it `ms` milliseconds from now. Call only
 * from the access handler or a content reader (libmicrohttpd's rule). False
 * when the timer is stopping or out of memory: nothing was suspended. */
bool mock_timer_park(mock_timer *timer, struct MHD_Connection *connection, long ms);

/* Resume every parked connection now and refuse to park any more: call it
 * before MHD_stop_daemon, which must not find a suspended connection. */
void mock_timer_stop(mock_timer *timer);

/* Milliseconds on a monotonic clock, for deadlines. */
long long mock_timer_now_ms(void);

#endif
