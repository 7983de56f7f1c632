/* mock_guard.h — the mock's connection guard (guard.c): every connection
 * gets GT_MOCK_REQUEST_HEAD_TIMEOUT_MS to send a request head, from its
 * accept or from the end of its last response, however it trickles; a
 * non-loopback address holds at most GT_MOCK_MAX_CONNECTIONS_PER_IP
 * connections (loopback clients all share 127.0.0.1, so they are not capped
 * per address: only the total GT_MOCK_MAX_CONNECTIONS applies to them).
 * Not for: HTTP parsing or the total cap (libmicrohttpd, server.c). */
#ifndef GT_MOCK_GUARD_H
#define GT_MOCK_GUARD_H

#include <microhttpd.h>

typedef struct mock_guard mock_guard;

/* A guard with its watchdog thread running; NULL when out of resources.
 * `per_address` 0 = no per-address cap. Free after the daemon stopped. */
mock_guard *mock_guard_new(unsigned head_timeout_ms, unsigned per_address);
void mock_guard_free(mock_guard *guard);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback (cls = the guard). */
void mock_guard_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                       enum MHD_ConnectionNotificationCode code);
/* The connection's request head is complete (the first handler call). */
void mock_guard_head_done(mock_guard *guard, struct MHD_Connection *connection);
/* The connection's response is done: the next head's deadline starts. */
void mock_guard_request_done(mock_guard *guard, struct MHD_Connection *connection);
/* How many connections the deadline closed so far. */
unsigned long mock_guard_heads_cut(mock_guard *guard);

#endif
